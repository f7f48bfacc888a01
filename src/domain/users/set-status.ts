import { z } from "zod";
import type { RequestContext } from "../context";
import { validationFailed } from "../errors";
import { authorize } from "../authorize";
import { notOwnedProject } from "../group-scope";
import { integerId } from "../commands/members";
import { parseCommand, type CommandDraft } from "../commands/parse-command";
import { countStatusChange } from "../projects/project-counters";
import { inTransaction } from "../transaction";
import { findOwnedProjectStatus, setRegistrationStatus } from "../../data/registrations.data";
import { requireRegisteredUser } from "./registration-lookup";
import type { UserOutcome } from "./user-commands";
import { loadUserSummaries } from "./user-summary";
import { recordEvent } from "../events/record-event";
import { registrationStamped } from "../unit-of-work";

const statusChangedEvent = (groupId: number, cloginId: number, statusId: number) => ({
  type: "user.status_changed" as const,
  groupId,
  data: { clogin_id: cloginId, status_id: statusId === 0 ? null : statusId },
});

/** users `set_status` (contract §14): `statusId` 0 removes the status. */
export const SetStatusCommand = z.object({ groupId: integerId, cloginId: integerId, statusId: integerId });

/**
 * users `set_status` (contract §14): `status_id` 0 removes the status, another id must be a
 * status of this project. Only this user changes, never its children. Throws FORBIDDEN,
 * VALIDATION_FAILED (path `status_id`) or USER_NOT_FOUND.
 */
export async function setUserStatus(
  ctx: RequestContext,
  draft: CommandDraft<typeof SetStatusCommand>,
): Promise<UserOutcome> {
  const cmd = parseCommand(SetStatusCommand, draft);
  const statusId = cmd.statusId;

  // Outside the transaction (a status is never deleted, nor its exclusion changed): the family's
  // lock is the transaction's first statement, so what it reads after that is current.
  const { organizationId } = authorize(ctx, "users.set_status", { groupId: cmd.groupId });
  const found = await findOwnedProjectStatus(ctx.em, organizationId, cmd.groupId, statusId);
  if (!found.owned) throw notOwnedProject(cmd.groupId);
  return inTransaction(ctx, async ({ em }) => {
    const user = await requireRegisteredUser(em, cmd.groupId, cmd.cloginId, { lock: true });
    if (statusId !== 0 && !found.status)
      throw validationFailed([
        {
          path: ["statusId"],
          reason: "NOT_AVAILABLE",
          value: statusId,
          message: `${statusId} is not a status of this project (0 removes the status)`,
        },
      ]);
    // Only a change of exclusion moves the registration (and a parent's children) between buckets.
    if ((found.status?.excluded ?? false) !== user.excluded)
      await countStatusChange(em, user.uid, statusId === 0 ? null : statusId);
    const changed = await setRegistrationStatus(em, user.uid, statusId === 0 ? null : statusId, new Date());
    if (changed) {
      registrationStamped(em, cmd.groupId, cmd.cloginId);
      recordEvent(em, statusChangedEvent(cmd.groupId, cmd.cloginId, statusId));
    }
    const summary = (await loadUserSummaries(em, [user.uid])).get(user.uid)!;
    return { uid: user.uid, groupId: cmd.groupId, cloginId: cmd.cloginId, summary, notices: [], problems: [] };
  });
}
