import type { EntityManager } from "typeorm";
import type { AdminLevel, EmailRecord } from "../../entities";
import { clientValue } from "../../shared/client-value";
import { invalidAddresses, isEmailAddress } from "../../shared/email";
import { DomainError, type MemberProblem } from "../errors";
import { MAX_VALUE_BYTES } from "../forms/field-input";
import type { EmailInput } from "./user-commands";

// add_email (seed §2.8, §4.3; contract §7): records emails sent elsewhere; nothing is sent.

export const MAX_EMAILS_PER_CALL = 100;
/** Admin levels that may appear as the sender of an email; viewers only read. */
export const SENDING_ADMIN_LEVELS: readonly AdminLevel[] = ["owner", "manager", "staff"];

const path = (index: number, member: string) => `doc.email_list[${index}].${member}`;

/** Every problem of the list, with wire paths; an empty result means the list can be recorded. */
export function emailListProblems(emails: readonly EmailInput[]): MemberProblem[] {
  const problems: MemberProblem[] = [];
  if (emails.length === 0 || emails.length > MAX_EMAILS_PER_CALL) {
    return [
      {
        path: "doc.email_list",
        message: `doc.email_list must hold 1 to ${MAX_EMAILS_PER_CALL} emails, got ${emails.length}.`,
      },
    ];
  }
  emails.forEach((email, index) => {
    const from = email.from.trim();
    if (from === "") problems.push({ path: path(index, "from"), message: `${path(index, "from")} must not be empty.` });
    else if (!isEmailAddress(from))
      problems.push({
        path: path(index, "from"),
        message: `${path(index, "from")} ${clientValue(from)} is not a valid email address.`,
      });
    const lists: [string, string | null | undefined, boolean][] = [
      ["to", email.to, true],
      ["cc", email.cc, false],
      ["bcc", email.bcc, false],
    ];
    for (const [member, value, required] of lists) {
      if (value == null || value.trim() === "") {
        if (required)
          problems.push({ path: path(index, member), message: `${path(index, member)} must not be empty.` });
        continue;
      }
      const invalid = invalidAddresses(value);
      if (invalid.length > 0) {
        const shown = invalid.map((entry) => clientValue(entry)).join(", ");
        problems.push({
          path: path(index, member),
          message: `${path(index, member)} holds ${invalid.length === 1 ? "an invalid address" : "invalid addresses"}: ${shown}.`,
        });
      }
    }
    if (email.subject.trim() === "")
      problems.push({ path: path(index, "subject"), message: `${path(index, "subject")} must not be empty.` });
    for (const member of ["to", "cc", "bcc", "subject", "body"] as const) {
      if (Buffer.byteLength(email[member] ?? "", "utf8") > MAX_VALUE_BYTES) {
        problems.push({
          path: path(index, member),
          message: `${path(index, member)} must be at most ${MAX_VALUE_BYTES} bytes.`,
        });
      }
    }
  });
  return problems;
}

type Row = Record<string, unknown>;

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
  const rows: Row[] = await em.query(
    `SELECT a.id, a.admin_level,
            (SELECT COUNT(*) FROM admin_project_access x WHERE x.admin_id = a.id AND x.project_id = ?) AS project_access
       FROM admin a
      WHERE a.organization_id = ? AND a.id IN (${adminIds.map(() => "?").join(", ")})`,
    [projectId, organizationId, ...adminIds],
  );
  const admins = new Map(
    rows.map((row) => [
      Number(row.id),
      { level: String(row.admin_level) as AdminLevel, access: Number(row.project_access) > 0 },
    ]),
  );
  const problems: MemberProblem[] = [];
  emails.forEach((email, index) => {
    if (email.adminId == null) return;
    const admin = admins.get(email.adminId);
    const where = path(index, "admin_id");
    if (!admin)
      problems.push({ path: where, message: `admin_id ${email.adminId} is not an admin of your organization.` });
    else if (!SENDING_ADMIN_LEVELS.includes(admin.level))
      problems.push({ path: where, message: `admin_id ${email.adminId} is a ${admin.level} and may not send emails.` });
    else if (admin.level !== "owner" && !admin.access)
      problems.push({ path: where, message: `admin_id ${email.adminId} has no access to project ${projectId}.` });
  });
  if (problems.length > 0) {
    const others = problems.length - 1;
    const message =
      others === 0
        ? problems[0].message
        : `${problems[0].message.replace(/\.$/, "")} (and ${others} more, see errors).`;
    throw new DomainError("FORBIDDEN", message, { problems });
  }
}

/** The history rows of the list, as recorded by the API. */
export function emailRecords(registrationId: number, emails: readonly EmailInput[], now: Date): Partial<EmailRecord>[] {
  const optional = (value: string | null | undefined) => (value == null || value.trim() === "" ? null : value.trim());
  return emails.map((email) => ({
    registrationId,
    fromAddress: email.from.trim(),
    toAddresses: email.to.trim(),
    ccAddresses: optional(email.cc),
    bccAddresses: optional(email.bcc),
    subject: email.subject,
    body: email.body,
    adminId: email.adminId ?? null,
    recordedAt: now,
    origin: "api",
  }));
}
