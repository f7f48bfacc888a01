import { z } from "zod";
import { findStatusByNameKey, insertStatus } from "../../data/statuses.data";
import { isUniqueViolation } from "../../db/unique-violation";
import type { RequestContext } from "../context";
import { parseCommand, type CommandDraft } from "../commands/parse-command";
import { flag, integerId, trimmedText } from "../commands/members";
import { conflict } from "../errors";
import { authorize } from "../authorize";
import { resolveOwnedProject } from "../group-scope";
import { inTransaction } from "../transaction";
import { clientValue } from "../../common/client-value";

export const STATUS_NAME_MAX_CHARACTERS = 100;
const COLOR = /^#[0-9A-Fa-f]{6}$/;

/**
 * statuses `create` (contract §7): a name of 1–100 characters after trimming surrounding white
 * space; a colour `#RRGGBB` (stored upper-case, as the fixture loader does); `isExcluded` a flag,
 * default false.
 */
export const CreateStatusCommand = z.object({
  groupId: integerId,
  name: trimmedText(STATUS_NAME_MAX_CHARACTERS),
  color: z
    .unknown()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === null)
        ctx.addIssue({ code: "custom", params: { reason: "REQUIRED" }, message: "is required" });
      else if (typeof value !== "string" || !COLOR.test(value))
        ctx.addIssue({
          code: "custom",
          params: { reason: "INVALID_FORMAT" },
          message: `must be a colour of the form #RRGGBB, got ${clientValue(value)}`,
        });
      else return value.toUpperCase();
      return z.NEVER;
    })
    .meta({ type: "string", pattern: COLOR.source }),
  isExcluded: flag(false),
});

export interface CreatedStatus {
  id: number;
  groupId: number;
  name: string;
  color: string;
  isExcluded: boolean;
}

/**
 * Creates a status in a project of the caller's organization, in one transaction.
 *
 * Throws VALIDATION_FAILED (checked before the project, so the answer does not depend on it), FORBIDDEN when `groupId` is not a
 * project of the organization, and CONFLICT with `extra.status_id` when the project already has
 * a status of that name, compared case-insensitively.
 */
export async function createStatus(
  ctx: RequestContext,
  draft: CommandDraft<typeof CreateStatusCommand>,
): Promise<CreatedStatus> {
  const command = parseCommand(CreateStatusCommand, draft);
  authorize(ctx, "statuses.create", { groupId: command.groupId });
  const status = { ...command, nameKey: command.name.toLowerCase() };
  try {
    return await inTransaction(ctx, async (tx) => {
      await resolveOwnedProject(tx, command.groupId);
      const existing = await findStatusByNameKey(tx.em, command.groupId, status.nameKey, false);
      if (existing) throw duplicateName(status.name, existing);
      const id = await insertStatus(tx.em, {
        projectId: command.groupId,
        name: status.name,
        nameKey: status.nameKey,
        color: status.color,
        isExcluded: status.isExcluded,
      });
      return { id, groupId: command.groupId, ...omitKey(status) };
    });
  } catch (error) {
    // A concurrent call inserted the same name between our check and our insert: the unique
    // index (project_id, name_key) refused ours. Report the winner, read outside our snapshot
    // (inside a caller's transaction, with a shared lock so the read sees the committed winner).
    if (!isUniqueViolation(error)) throw error;
    const winner = await findStatusByNameKey(ctx.em, command.groupId, status.nameKey, ctx.inTransaction);
    if (!winner) throw error;
    throw duplicateName(status.name, winner);
  }
}

const omitKey = ({ name, color, isExcluded }: z.output<typeof CreateStatusCommand>) => ({ name, color, isExcluded });

const duplicateName = (name: string, existing: { id: number; name: string }) =>
  conflict(
    `Status name "${name}" is taken in this project by status_id ${existing.id} ("${existing.name}"); names are compared case-insensitively.`,
    { status_id: existing.id },
  );
