import { insertEmailHistory } from "../../data/email-history.data";
import type { RegistrationLists, RegistrationListsWanted } from "../../data/registration-lists.data";
import type { SummaryMembers } from "../../data/user-projection";
import { readOwnedSummary } from "../../data/user-summary.data";
import type { RequestContext } from "../context";
import { parseCommand, type CommandDraft } from "../commands/parse-command";
import { failOnProblems, userNotFound } from "../errors";
import { authorize } from "../authorize";
import { notOwnedProject } from "../group-scope";
import { inTransaction } from "../transaction";
import { assertSendingAdmins, emailListProblems, emailRecords } from "./email-history";
import { stampOwnedRegistration } from "./registration-lookup";
import { AddEmailsCommand, type UserOutcome } from "./user-commands";
import type { UserSummary } from "./user-summary";
import { recordEvents } from "../events/record-event";

// The users operations shared by the legacy REST envelope and GraphQL. Each resolves the group
// first (FORBIDDEN before anything else), runs in one transaction and returns the refreshed
// summary; a failed call writes nothing. Create and update live in their own modules; this one
// names them all for the transports.

export { createChild, createUser } from "./create-user";
export { updateUser, updateUserIfRegistered } from "./update-user";
export { outcomeOf, saveValuesAndSubmit } from "./user-values";

/**
 * users `add_email`: records emails sent elsewhere in the user's history (origin `api`); nothing
 * is sent. All or nothing. Throws FORBIDDEN (group, or an admin_id that may not send here),
 * VALIDATION_FAILED or USER_NOT_FOUND.
 */
export async function addEmails(
  ctx: RequestContext,
  draft: CommandDraft<typeof AddEmailsCommand>,
): Promise<UserOutcome> {
  const cmd = parseCommand(AddEmailsCommand, draft);
  const organizationId = authorize(ctx, "users.add_email", { groupId: cmd.groupId }).organizationId;
  return inTransaction(ctx, "users.add_email", async ({ em }) => {
    // The family's exclusive lock first (docs/locking.md), taken by the stamp of its updated_at:
    // the history and event rows check their foreign key against the registration with a shared
    // lock, and two calls that each held it would wait for each other's exclusive stamp.
    const now = new Date();
    const user = await stampOwnedRegistration(ctx, em, cmd.groupId, cmd.cloginId, {
      now,
      whenOwned: () => failOnProblems(emailListProblems(cmd.emails)),
    });
    await assertSendingAdmins(em, organizationId, cmd.groupId, cmd.emails);
    await insertEmailHistory(em, emailRecords(user.uid, cmd.emails, now));
    recordEvents(em, emailRecordedEvents(user, cmd.emails));
    // The emails are no part of the summary: the one read after the lock answers.
    return { ...user, notices: [], problems: [] };
  });
}

const emailRecordedEvents = (user: { groupId: number; cloginId: number }, emails: AddEmailsCommand["emails"]) =>
  emails.map((email) => ({
    type: "email.recorded" as const,
    groupId: user.groupId,
    data: { clogin_id: user.cloginId, to: email.to.trim(), subject: email.subject },
    adminId: email.adminId ?? null,
  }));

/**
 * Reads one user of the project. Throws FORBIDDEN or USER_NOT_FOUND. Ownership, registration and
 * summary come from one statement, so one consistent read answers all three; `withChildren` adds
 * the summaries of the user's children to that same statement, `lists` the lists of the user
 * (and children) it names.
 */
export async function getUser(
  ctx: RequestContext,
  groupId: number,
  cloginId: number,
  /**
   * With `members`, the summaries hold only those members and the identity (the others absent):
   * for a caller that uses no other part of them.
   */
  options: { withChildren?: boolean; members?: SummaryMembers | null; lists?: RegistrationListsWanted } = {},
): Promise<UserOutcome & { children: UserSummary[]; lists: Map<number, RegistrationLists> }> {
  const { organizationId } = authorize(ctx, "read", { groupId });
  const found = await readOwnedSummary(ctx.em, organizationId, groupId, cloginId, options);
  if (!found.owned) throw notOwnedProject(groupId);
  if (!found.summary) throw userNotFound(cloginId, groupId);
  return {
    uid: found.summary.uid,
    groupId,
    cloginId,
    summary: found.summary,
    notices: [],
    problems: [],
    children: found.children,
    lists: found.lists,
  };
}
