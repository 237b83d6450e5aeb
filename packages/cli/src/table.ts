import Table from "cli-table3";
import { bold } from "./colour.js";

/**
 * A cli-table3 table with cuzkit's look: no colour of its own (cli-table3's default paints the
 * header red and the border grey whatever the output is), a bold header only when `colour`.
 */
export function createTable(
  head: readonly string[] | undefined,
  options: { colour: boolean; compact?: boolean | undefined },
): Table.Table {
  return new Table({
    // cli-table3's default head is [] (no header row).
    head: (head ?? []).map((text) => bold(text, options.colour)),
    style: { head: [], border: [], compact: options.compact ?? true },
  });
}
