// @cuzkit/client/testing: test kits for code that drives the client (not for production use).
export { startTcpProxy, type TcpProxy } from "./tcp-proxy.js";
