import type { VastClient, VastInstance } from "@cuzkit/vast";
import { vastLib } from "./context.js";

/**
 * The instance, or VastNotFoundError saying it is not on this account: a destroyed instance and
 * a mistyped id look the same to the API, and both must fail rather than report success.
 */
export async function existingInstance(client: VastClient, id: number): Promise<VastInstance> {
  const instance = await client.showInstance(id);
  if (instance === null) {
    const { VastNotFoundError } = await vastLib();
    throw new VastNotFoundError(`no instance ${id} on this account (destroyed, or a mistyped id)`, {
      endpoint: `GET /api/v0/instances/${id}/`,
      hint: "list yours with `cuzkit vast instances`",
    });
  }
  return instance;
}
