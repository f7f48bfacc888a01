import type { ProjectListing } from "../../domain/projects/projects.service";
import { formatCents } from "../../common/money";
import type { FieldDefinition } from "../../data/forms.data";
import type { RegistrationRef } from "../../data/registrations.data";
import type { UserOutcome } from "../../domain/users/user-commands";
import type { FieldTypeEnum } from "../types/enums.type";
import type { FormFieldType } from "../types/form.type";
import type { ProjectType } from "../types/project.type";
import { UserType } from "../types/user.type";

// The few mappings from domain shapes to GraphQL sources, in one place.

/** A project as the domain lists it (a project record has the same members but `totals`). */
export function presentProjectListing(
  project: Omit<ProjectListing, "totals"> & { totals?: ProjectListing["totals"] },
): ProjectType {
  const totals = project.totals;
  return {
    groupId: project.id,
    name: project.name,
    currency: project.currency,
    createdAt: project.createdAt,
    isArchived: project.archived,
    groupTotals: totals
      ? {
          totalUsers: totals.totalUsers,
          totalActiveUsers: totals.totalActiveUsers,
          totalOrder: formatCents(totals.totalOrderCents),
          totalPaid: formatCents(totals.totalPaidCents),
          totalBalance: formatCents(totals.totalBalanceCents),
        }
      : null,
  };
}

// Users are handed to GraphQL as UserType instances: type-graphql copies a plain root object into
// a new instance for every field resolver it calls, which costs CPU in every list of users.
export function userFromRef(ref: RegistrationRef): UserType {
  return Object.assign(new UserType(), {
    uid: ref.uid,
    groupId: ref.groupId,
    cloginId: ref.cloginId,
    parentCloginId: ref.parentCloginId,
  });
}

/** The user of a users outcome; its fresh summary primes the request's loader (no second read). */
export function userFromOutcome(outcome: UserOutcome): UserType {
  return Object.assign(new UserType(), {
    uid: outcome.uid,
    groupId: outcome.groupId,
    cloginId: outcome.cloginId,
    parentCloginId: outcome.summary.parentCloginId,
  });
}

/** A field under its GraphQL member names. */
export function presentField(field: FieldDefinition): FormFieldType {
  return {
    identifier: field.id,
    mappedName: field.name,
    label: field.label,
    type: field.fieldType as FieldTypeEnum,
    mandatory: field.mandatory,
    options: field.options,
  };
}
