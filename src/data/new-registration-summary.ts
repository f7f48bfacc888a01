import type { RawSummaryRow } from "./summary-columns";
import { decodeWholeSummary, type UserSummary } from "./user-projection";

// The summary of a registration its own transaction has just made with its person, built from
// what was written instead of read back: the twin of the summary's SQL (user-projection.ts) for
// the one case where every row it would read is known. test/domain/new-registration-summary.test.ts
// holds the two to the same answers.

/** A form of a registration's form set, as the `forms` part counts it. */
export interface CountedForm {
  mandatory: boolean;
  audience: string;
  completed: boolean;
}

/**
 * The six counts of the `forms` part ("n,n,n,n,n,n") of a form set known in full: the twin of
 * the `forms` part's SQL, for a registration whose every form row its own transaction just wrote
 * (summaryOfNewRegistration).
 */
function formCountsOf(forms: readonly CountedForm[]): string {
  const counts = [forms.length, 0, 0, 0, 0, 0];
  for (const form of forms) {
    if (form.completed) counts[1] += 1;
    if (form.audience !== "user") continue;
    counts[2] += 1;
    if (form.completed) counts[3] += 1;
    if (!form.mandatory) continue;
    counts[4] += 1;
    if (form.completed) counts[5] += 1;
  }
  return counts.join(",");
}

/** Everything a registration's summary reads, for one its own transaction made with its person. */
export interface NewRegistration {
  uid: number;
  groupId: number;
  cloginId: number;
  parentCloginId: number | null;
  applicationDate: Date;
  updatedAt: Date;
  person: { username: string | null; firstName: string | null; lastName: string | null; orgName: string | null };
  /** Its form set: every registration_form row written. */
  forms: readonly CountedForm[];
  /** The sum of its cart lines' amounts. */
  orderCents: number;
}

/**
 * The full summary of a registration made in the running transaction together with its person,
 * from what was written, as a read of it would decode it: no status, no assigned admin, no star,
 * tag, payment or comment, and no children (nobody could name a person that did not exist).
 * A create answers with it instead of reading back the rows it has just inserted.
 */
export function summaryOfNewRegistration(made: NewRegistration): UserSummary {
  const raw: RawSummaryRow = {
    uid: made.uid,
    project_id: made.groupId,
    person_id: made.cloginId,
    connected_to: made.parentCloginId,
    star: 0,
    application_date: made.applicationDate,
    updated_at: made.updatedAt,
    username: made.person.username,
    first_name: made.person.firstName,
    last_name: made.person.lastName,
    org_name: made.person.orgName,
    status_id: null,
    status_name: null,
    status_color: null,
    status_excluded: null,
    admin_id: null,
    admin_initials: null,
    admin_color: null,
    form_counts: formCountsOf(made.forms),
    order_cents: made.orderCents,
    paid_cents: 0,
    comment_count: 0,
    non_excluded_children: 0,
    tags: null,
  };
  return decodeWholeSummary(raw);
}
