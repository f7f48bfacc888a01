import type { RequestContext } from "../context";
import { validationFailed } from "../errors";
import { resolveOwnedProject } from "../group-scope";
import { MemberReader, summaryOf } from "../member-parsers";
import { inTransaction } from "../transaction";
import { findProjectStatus, setRegistrationStatus } from "../../data/registrations.data";
import { requireRegisteredUser } from "./registration-lookup";
import type { UserOutcome } from "./user-commands";
import { loadUserSummaries } from "./user-summary";

/** users `set_status`, with `status_id` as sent (an integer or a string of digits). */
export interface SetStatusCommand {
  groupId: number;
  cloginId: number;
  statusId: unknown;
}

/**
 * users `set_status` (contract §14): `status_id` 0 removes the status, another id must be a
 * status of this project. Only this user changes, never its children. Throws FORBIDDEN,
 * VALIDATION_FAILED (path `status_id`) or USER_NOT_FOUND.
 */
export async function setUserStatus(ctx: RequestContext, cmd: SetStatusCommand): Promise<UserOutcome> {
  const read = new MemberReader();
  const statusId = read.integer("status_id", cmd.statusId, { required: true });
  if (read.problems.length > 0) throw validationFailed(summaryOf("Invalid request", read.problems), read.problems);

  return inTransaction(ctx, async ({ em }) => {
    await resolveOwnedProject(ctx, cmd.groupId, em);
    const user = await requireRegisteredUser(em, cmd.groupId, cmd.cloginId);
    if (statusId !== 0 && !(await findProjectStatus(em, cmd.groupId, statusId!))) {
      read.problem("status_id", `${statusId} is not a status of this project (0 removes the status)`);
      throw validationFailed(summaryOf("Invalid request", read.problems), read.problems);
    }
    await setRegistrationStatus(em, user.uid, statusId === 0 ? null : statusId);
    const summary = (await loadUserSummaries(em, [user.uid])).get(user.uid)!;
    return { uid: user.uid, groupId: cmd.groupId, cloginId: cmd.cloginId, summary, notices: [] };
  });
}
