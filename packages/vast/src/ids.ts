import { InvalidInputError } from "@cuzkit/core";

/** Checks an instance id before it goes into a path. */
export function checkInstanceId(id: number): number {
  if (!Number.isSafeInteger(id) || id <= 0) {
    throw new InvalidInputError(`invalid instance id ${id}`, {
      hint: "give the numeric id shown by `cuzkit vast instances`",
    });
  }
  return id;
}
