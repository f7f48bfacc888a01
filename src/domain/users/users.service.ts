import { insertEmailHistory } from "../../data/email-history.data";
import { readOwnedSummaryRow, type SummaryPart } from "../../data/registrations.data";
import { requirePrincipal, type RequestContext } from "../context";
import { parseCommand, type CommandDraft } from "../commands/parse-command";
import { failOnProblems, userNotFound } from "../errors";
import { notOwnedProject } from "../group-scope";
import { inTransaction } from "../transaction";
import { assertSendingAdmins, emailListProblems, emailRecords } from "./email-history";
import { requireOwnedRegistration, type RegisteredUser } from "./registration-lookup";
import { AddEmailsCommand, type UserOutcome } from "./user-commands";
import { summaryOf, type UserSummary } from "./user-summary";
import { recordEvents } from "../events/record-event";
import { outcomeOf } from "./user-values";

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
  const organizationId = requirePrincipal(ctx).organizationId;
  return inTransaction(ctx, async ({ em }) => {
    // Ownership with the registration (one statement); the list's problems come after FORBIDDEN.
    const user = await requireOwnedRegistration(ctx, em, cmd.groupId, cmd.cloginId, {
      whenOwned: () => failOnProblems(emailListProblems(cmd.emails)),
    });
    await assertSendingAdmins(em, organizationId, cmd.groupId, cmd.emails);
    await insertEmailHistory(em, emailRecords(user.uid, cmd.emails, new Date()));
    recordEvents(em, emailRecordedEvents(user, cmd.emails));
    return outcomeOf(em, user, []);
  });
}

const emailRecordedEvents = (user: RegisteredUser, emails: AddEmailsCommand["emails"]) =>
  emails.map((email) => ({
    type: "email.recorded" as const,
    groupId: user.groupId,
    data: { clogin_id: user.cloginId, to: email.to.trim(), subject: email.subject },
  }));

/**
 * Reads one user of the project. Throws FORBIDDEN or USER_NOT_FOUND. Ownership, registration and
 * summary come from one statement, so one consistent read answers all three; `withChildren` adds
 * the summaries of the user's children to that same statement.
 */
export async function getUser(
  ctx: RequestContext,
  groupId: number,
  cloginId: number,
  /**
   * With `parts`, the summaries hold only those parts (the others read as zero, empty or null):
   * for a caller that uses no other part of them.
   */
  options: { withChildren?: boolean; parts?: ReadonlySet<SummaryPart> | null } = {},
): Promise<UserOutcome & { children: UserSummary[] }> {
  const { organizationId } = requirePrincipal(ctx);
  const found = await readOwnedSummaryRow(ctx.em, organizationId, groupId, cloginId, options);
  if (!found.owned) throw notOwnedProject(groupId);
  if (!found.row) throw userNotFound(cloginId, groupId);
  return {
    uid: found.row.uid,
    groupId,
    cloginId,
    summary: summaryOf(found.row),
    notices: [],
    children: found.children.map(summaryOf),
  };
}
