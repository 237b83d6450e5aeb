/// <reference lib="dom" />
import "./dashboard.css";
import { fleetPage } from "./fleet-page.js";
import { instancePage } from "./instance-page.js";

// The dashboard's entry: the server sends the same shell for every page and names it in
// <body data-page>; the instance id comes from the path.
const root = document.createElement("main");
document.body.append(root);
const page = document.body.dataset.page;
if (page === "instance") {
  instancePage(root, decodeURIComponent(location.pathname.split("/").pop() ?? ""));
} else {
  fleetPage(root);
}
