import { describe, expect, it } from "vitest";
import { createConsoleLogger } from "./logger.js";

describe("createConsoleLogger", () => {
  it("leaves out a field whose value is undefined (callers pass optional values as they are)", () => {
    const lines: string[] = [];
    const logger = createConsoleLogger("info", (line) => lines.push(line));
    logger.info("listening", { address: "127.0.0.1:9820", status: undefined, count: 0 });
    expect(lines).toEqual(["info listening address=127.0.0.1:9820 count=0"]);
  });
});
