import type { EntityManager } from "typeorm";
import { findRegisteredUser, type RegisteredUser } from "../../data/registrations.data";
import { findProjectOfOrganization } from "../../data/projects.data";
import { requirePrincipal, type RequestContext } from "../context";
import { userNotFound } from "../errors";
import { notOwnedProject } from "../group-scope";
import { bucketOf, type CounterBucket } from "../projects/project-counters";
import { noteFamilyParent, noteRegistrationUid, registrationStamped } from "../unit-of-work";
import { stampOwnedFamilyUpdated } from "../../data/registrations-updated.data";
import { readOwnedSummary } from "../../data/user-summary.data";
import type { UserSummary } from "./user-summary";

export type { RegisteredUser };

/**
 * The registration of `cloginId` in `projectId`; USER_NOT_FOUND (nothing written) when absent.
 * With `lock`, the registration's family is locked as it is read (one statement: the registration,
 * its person, a child's parent), so concurrent writes to one family run one after the other and
 * read each other's results: a trigger cannot fire twice because two calls both saw it unfired.
 * Take it as the transaction's first statement: what the transaction reads after it is current.
 */
export async function requireRegisteredUser(
  em: EntityManager,
  projectId: number,
  cloginId: number,
  options: { lock?: boolean } = {},
): Promise<RegisteredUser> {
  const user = await findRegisteredUser(em, projectId, cloginId, { lock: options.lock });
  if (!user) throw userNotFound(cloginId, projectId);
  if (options.lock) lockedFamily(em, projectId, user);
  return user;
}

/** A locked family: stamped by uid, and a child's parent with it when it changes (unit-of-work.ts). */
function lockedFamily(em: EntityManager, projectId: number, user: RegisteredUser): void {
  noteRegistrationUid(em, projectId, user.cloginId, user.uid);
  if (user.parentCloginId === null) return;
  noteFamilyParent(em, projectId, user.cloginId, user.parentCloginId);
  if (user.parentUid !== null) noteRegistrationUid(em, projectId, user.parentCloginId, user.parentUid);
}

/**
 * The registration of `cloginId` in `projectId` of the caller's organization, proving ownership
 * with the same statement (the first of the transaction, locking with `lock` as
 * requireRegisteredUser does): FORBIDDEN for a project of another organization (or none),
 * USER_NOT_FOUND for someone not registered in an owned project. Only an absent registration
 * costs a second statement, to tell those two apart. `whenOwned` runs once ownership is known and
 * before USER_NOT_FOUND, for the checks a command makes between the two; `whenNotRegistered`
 * answers an owned project's absent registration instead of USER_NOT_FOUND.
 */
export async function requireOwnedRegistration<T = never>(
  ctx: RequestContext,
  em: EntityManager,
  projectId: number,
  cloginId: number,
  options: { lock?: boolean; whenOwned?: () => void; whenNotRegistered?: () => T } = {},
): Promise<RegisteredUser | T> {
  const { organizationId } = requirePrincipal(ctx);
  const found = await findRegisteredUser(em, projectId, cloginId, { lock: options.lock });
  const owned = found
    ? found.organizationId === organizationId
    : (await findProjectOfOrganization(em, projectId, organizationId)) !== null;
  if (!owned) throw notOwnedProject(projectId);
  options.whenOwned?.();
  if (found) {
    if (options.lock) lockedFamily(em, projectId, found);
    return found;
  }
  if (options.whenNotRegistered) return options.whenNotRegistered();
  throw userNotFound(cloginId, projectId);
}

/**
 * For a write that changes no column of the registration but adds rows about it (add_email): the
 * family locked by the stamp of its updated_at (the transaction's first statement, so the lock
 * order of docs/locking.md holds), then the registration read with its summary and ownership in
 * one statement, current because the lock came first. Two statements, not three (a lock, a
 * summary read after the write, the stamp at the end of the unit of work); the summary already
 * shows the new updated_at. Throws FORBIDDEN, then (after `whenOwned`) USER_NOT_FOUND, as
 * requireOwnedRegistration does.
 */
export async function stampOwnedRegistration(
  ctx: RequestContext,
  em: EntityManager,
  projectId: number,
  cloginId: number,
  options: { now: Date; whenOwned?: () => void },
): Promise<{ uid: number; groupId: number; cloginId: number; summary: UserSummary }> {
  const { organizationId } = requirePrincipal(ctx);
  await stampOwnedFamilyUpdated(em, organizationId, projectId, cloginId, options.now);
  const found = await readOwnedSummary(em, organizationId, projectId, cloginId);
  if (!found.owned) throw notOwnedProject(projectId);
  options.whenOwned?.();
  const summary = found.summary;
  if (!summary) throw userNotFound(cloginId, projectId);
  // Stamped already: the end of the unit of work leaves the family's updated_at alone.
  registrationStamped(em, projectId, cloginId);
  if (summary.parentCloginId !== null) registrationStamped(em, projectId, summary.parentCloginId);
  return { uid: summary.uid, groupId: projectId, cloginId, summary };
}

/** The counter bucket of a registration read by requireRegisteredUser. */
export const counterBucketOf = (user: RegisteredUser): CounterBucket =>
  bucketOf({ isChild: user.parentCloginId !== null, excluded: user.excluded, parentExcluded: user.parentExcluded });

/** The legacy `connected_to` of a registration: its parent's clogin_id for a child, else its own. */
export const connectedToOf = (registration: { cloginId: number; parentCloginId: number | null }): number =>
  registration.parentCloginId ?? registration.cloginId;
