import type { EntityManager } from "typeorm";
import { findRegisteredUser, type RegisteredUser } from "../../data/registrations.data";
import { userNotFound } from "../errors";
import { bucketOf, type CounterBucket } from "../projects/project-counters";

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
  return user;
}

/** The counter bucket of a registration read by requireRegisteredUser. */
export const counterBucketOf = (user: RegisteredUser): CounterBucket =>
  bucketOf({ isChild: user.parentCloginId !== null, excluded: user.excluded, parentExcluded: user.parentExcluded });

/** The legacy `connected_to` of a registration: its parent's clogin_id for a child, else its own. */
export const connectedToOf = (registration: { cloginId: number; parentCloginId: number | null }): number =>
  registration.parentCloginId ?? registration.cloginId;
