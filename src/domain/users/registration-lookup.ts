import type { EntityManager } from "typeorm";
import { findRegisteredUser, type RegisteredUser } from "../../data/registrations.data";
import { findProjectOfOrganization } from "../../data/projects.data";
import { requirePrincipal, type RequestContext } from "../context";
import { userNotFound } from "../errors";
import { notOwnedProject } from "../group-scope";
import { bucketOf, type CounterBucket } from "../projects/project-counters";
import { noteFamilyParent, noteRegistrationUid } from "../unit-of-work";

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

/** The counter bucket of a registration read by requireRegisteredUser. */
export const counterBucketOf = (user: RegisteredUser): CounterBucket =>
  bucketOf({ isChild: user.parentCloginId !== null, excluded: user.excluded, parentExcluded: user.parentExcluded });

/** The legacy `connected_to` of a registration: its parent's clogin_id for a child, else its own. */
export const connectedToOf = (registration: { cloginId: number; parentCloginId: number | null }): number =>
  registration.parentCloginId ?? registration.cloginId;
