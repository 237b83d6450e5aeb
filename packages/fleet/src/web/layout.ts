/// <reference lib="dom" />
import { adminToken, setAdminToken } from "./api.js";
import { el } from "./dom.js";

/** A line for outcomes of actions and errors. */
export function notice(): { element: HTMLElement; show(text: string, kind: "ok" | "error"): void } {
  const element = el("output", { id: "notice", "aria-live": "polite" });
  return {
    element,
    show(text, kind) {
      element.textContent = text;
      element.className = kind;
    },
  };
}

/** The page header: title, the live stream's state, the admin token field (kept for this tab only) and the notice line. */
export function header(
  title: string,
  noticeElement: HTMLElement,
  livenessElement?: HTMLElement,
): HTMLElement {
  const input = el("input", {
    id: "admin-token",
    type: "password",
    placeholder: "admin token",
    autocomplete: "off",
  });
  input.value = adminToken() ?? "";
  const save = el("button", { type: "button", id: "save-token" }, "use token");
  save.addEventListener("click", () => {
    setAdminToken(input.value.trim());
    location.reload();
  });
  return el(
    "header",
    {},
    el("h1", {}, el("a", { href: "/" }, title)),
    livenessElement,
    el("div", { class: "token" }, input, save),
    noticeElement,
  );
}
