import { Command } from "commander";
import type { CliIO } from "../../io.js";
import { addAccountCommand } from "./account.js";
import { createVastContext, type VastCommandDeps } from "./context.js";
import { addDestroyCommand } from "./destroy.js";
import { addInstancesCommand } from "./instances.js";
import { addLabelCommand } from "./label.js";
import { addLogsCommand } from "./logs.js";
import { addOffersCommand } from "./offers.js";
import { addRebootCommand } from "./reboot.js";
import { addRentCommand } from "./rent.js";
import { addShowCommand } from "./show.js";
import { addSshKeyCommand } from "./ssh-key.js";
import { addSshUrlCommand } from "./ssh-url.js";
import { addStartCommand } from "./start.js";
import { addStopCommand } from "./stop.js";

export type { VastCommandDeps } from "./context.js";

const apiKeyNote =
  "The API key comes from VAST_API_KEY or the Vast CLI's key file ($XDG_CONFIG_HOME/vastai/vast_api_key, " +
  "~/.config/vastai/vast_api_key, ~/.vast_api_key). There is no --api-key flag: keys on command lines leak into shell history.\n" +
  "Calls are paced per endpoint at or above Vast.ai's published thresholds (create 4.5 s, destroy 3 s, show 2 s, list 1 s); " +
  "a 429 is retried after the threshold it names, and each retry is reported on stderr (--verbose shows every call and wait).";

/**
 * `cuzkit vast offers|rent|instances|show|logs|label|stop|start|reboot|ssh-url|ssh-key|account|destroy`:
 * the rent lifecycle of Vast.ai machines. Tables by default, `--json` for scripts. `rent` and
 * `destroy` ask for confirmation unless `--yes`; without a terminal they refuse instead of hanging.
 */
export function createVastCommand(io: CliIO, deps: VastCommandDeps = {}): Command {
  const vast = new Command("vast")
    .description("rent, inspect and destroy Vast.ai GPU machines")
    .addHelpText("after", `\n${apiKeyNote}`)
    .option("--url <url>", "Vast.ai API base URL (default: VAST_URL, else https://console.vast.ai)")
    .option(
      "--verbose",
      "log every API call, response, retry and pacing wait to stderr (the key is never shown)",
    )
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  const ctx = createVastContext(io, deps);
  addOffersCommand(vast, ctx);
  addRentCommand(vast, ctx);
  addInstancesCommand(vast, ctx);
  addShowCommand(vast, ctx);
  addLogsCommand(vast, ctx);
  addLabelCommand(vast, ctx);
  addStopCommand(vast, ctx);
  addStartCommand(vast, ctx);
  addRebootCommand(vast, ctx);
  addSshUrlCommand(vast, ctx);
  addSshKeyCommand(vast, ctx);
  addAccountCommand(vast, ctx);
  addDestroyCommand(vast, ctx);
  return vast;
}
