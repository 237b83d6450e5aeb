import type { Command } from "commander";
import type { VastContext } from "./context.js";

/** `cuzkit vast account`: balance and credit of the account behind the key. */
export function addAccountCommand(vast: Command, ctx: VastContext): void {
  vast
    .command("account")
    .description("show the account's balance and credit (USD)")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }, command: Command) => {
      const client = await ctx.client(command);
      const user = await client.getCurrentUser();
      const summary = { id: user.id, email: user.email, balanceUsd: user.balance, creditUsd: user.credit };
      if (opts.json) ctx.printJson(summary);
      else {
        const usd = (value: number | undefined) => (value === undefined ? "unknown" : `$${value.toFixed(2)}`);
        ctx.print(
          `account ${user.id}${user.email ? ` (${user.email})` : ""}: balance ${usd(user.balance)}, credit ${usd(user.credit)}`,
        );
      }
    });
}
