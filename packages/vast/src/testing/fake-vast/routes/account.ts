import { searchOffers } from "../offer-query.js";
import { invalidArgs, isRecord } from "../replies.js";
import type { RouteHandler } from "./request.js";

// Account routes: the offer search, SSH keys, and the current user.

/** POST /api/v0/bundles/: the offer search. */
export const searchBundles: RouteHandler = (state, { body }) => ({
  status: 200,
  body: { offers: searchOffers(state.offers, body) },
});

/** GET /api/v0/ssh/. */
export const listSshKeys: RouteHandler = (state) => ({ status: 200, body: state.sshKeys });

/** POST /api/v0/ssh/: adds a key. */
export const addSshKey: RouteHandler = (state, { body }) => {
  const text = isRecord(body) ? body.ssh_key : undefined;
  if (typeof text !== "string") return invalidArgs("ssh_key required");
  const key = {
    id: state.nextKeyId++,
    user_id: 42,
    public_key: text,
    created_at: "2026-01-01T00:00:00Z",
    deleted_at: null,
  };
  state.sshKeys.push(key);
  return { status: 200, body: { success: true, key } };
};

/** GET /api/v0/users/current/ (with or without the slash): the account and its balance. */
export const currentUser: RouteHandler = (state) => ({
  status: 200,
  body: {
    id: 42,
    email: "operator@example.com",
    balance: state.balance,
    credit: 5,
    api_key: state.apiKey,
    sid: "s-1",
    username: "op",
  },
});
