import type { EntityManager } from "typeorm";
import { readAdminsForProject } from "../../data/admins.data";
import type { NewEmailHistoryEntry } from "../../data/email-history.data";
import type { AdminLevel } from "../../entities";
import { invalidAddresses, isEmailAddress } from "../../common/email";
import { withProblems, type Problem } from "../errors";
import type { ProblemReason } from "../problems";
import { MAX_VALUE_BYTES } from "../forms/field-input";
import type { EmailInput } from "./user-commands";
import { clientValue } from "../../common/client-value";

// add_email (contract §7.2): records emails sent elsewhere; nothing is sent.

/** Admin levels that may appear as the sender of an email; viewers only read. */
export const SENDING_ADMIN_LEVELS: readonly AdminLevel[] = ["owner", "manager", "staff"];

/**
 * Every problem of the addresses and texts of the list (its shape and size are the command
 * schema's); an empty result means the list can be recorded.
 */
export function emailListProblems(emails: readonly EmailInput[]): Problem[] {
  const problems: Problem[] = [];
  emails.forEach((email, index) => {
    const problem = (member: string, reason: ProblemReason, message: string) =>
      problems.push({ path: ["emails", index, member], reason, message, value: email[member as keyof EmailInput] });
    const from = email.from.trim();
    if (from === "") problem("from", "EMPTY", "must not be empty");
    else if (!isEmailAddress(from))
      problem("from", "INVALID_EMAIL", `is not a valid email address: ${clientValue(from)}`);
    const lists: [string, string | null | undefined, boolean][] = [
      ["to", email.to, true],
      ["cc", email.cc, false],
      ["bcc", email.bcc, false],
    ];
    for (const [member, value, required] of lists) {
      if (value == null || value.trim() === "") {
        if (required) problem(member, "EMPTY", "must not be empty");
        continue;
      }
      const invalid = invalidAddresses(value);
      if (invalid.length > 0) {
        const shown = invalid.map((entry) => clientValue(entry)).join(", ");
        problem(
          member,
          "INVALID_EMAIL",
          `holds ${invalid.length === 1 ? "an invalid address" : "invalid addresses"}: ${shown}`,
        );
      }
    }
    if (email.subject.trim() === "") problem("subject", "EMPTY", "must not be empty");
    for (const member of ["to", "cc", "bcc", "subject", "body"] as const) {
      if (Buffer.byteLength(email[member] ?? "", "utf8") > MAX_VALUE_BYTES)
        problem(member, "TOO_LONG", `must be at most ${MAX_VALUE_BYTES} bytes`);
    }
  });
  return problems;
}

/**
 * Each `admin_id` must be an admin of the organization who may send (not a viewer) and reaches
 * the project (owners reach every project, others need access to it). Otherwise FORBIDDEN,
 * naming every offending entry; an admin of another organization reads as unknown.
 */
export async function assertSendingAdmins(
  em: EntityManager,
  organizationId: number,
  projectId: number,
  emails: readonly EmailInput[],
): Promise<void> {
  const adminIds = [...new Set(emails.map((email) => email.adminId).filter((id): id is number => id != null))];
  if (adminIds.length === 0) return;
  const admins = await readAdminsForProject(em, organizationId, projectId, adminIds);
  const problems: Problem[] = [];
  emails.forEach((email, index) => {
    if (email.adminId == null) return;
    const admin = admins.get(email.adminId);
    const problem = (message: string) =>
      problems.push({ path: ["emails", index, "adminId"], reason: "NOT_ALLOWED", message, value: email.adminId });
    if (!admin) problem(`names ${email.adminId}, who is not an admin of your organization`);
    else if (!SENDING_ADMIN_LEVELS.includes(admin.level))
      problem(`names ${email.adminId}, a ${admin.level}, who may not send emails`);
    else if (admin.level !== "owner" && !admin.hasProjectAccess)
      problem(`names ${email.adminId}, who has no access to project ${projectId}`);
  });
  if (problems.length > 0) throw withProblems("FORBIDDEN", problems);
}

/** The history rows of the list, as recorded by the API. */
export function emailRecords(registrationId: number, emails: readonly EmailInput[], now: Date): NewEmailHistoryEntry[] {
  const optional = (value: string | null | undefined) => (value == null || value.trim() === "" ? null : value.trim());
  return emails.map((email) => ({
    uid: registrationId,
    from: email.from.trim(),
    to: email.to.trim(),
    cc: optional(email.cc),
    bcc: optional(email.bcc),
    subject: email.subject,
    body: email.body,
    adminId: email.adminId ?? null,
    recordedAt: now,
    origin: "api",
  }));
}
