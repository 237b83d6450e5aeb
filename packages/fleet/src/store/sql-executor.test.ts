import { describe, expect, it } from "vitest";
import { insertRow } from "./sql-executor.js";

describe("insertRow", () => {
  it("binds each value to its own column, in the row's order, with the suffix after VALUES", () => {
    expect(insertRow("t", { a: 1, b: null, c: "x" }, "RETURNING *")).toEqual({
      sql: "INSERT INTO t (a, b, c) VALUES (?, ?, ?) RETURNING *",
      params: [1, null, "x"],
    });
    expect(insertRow("t", { a: 1 }).sql).toBe("INSERT INTO t (a) VALUES (?)");
  });
});
