import DataLoader from "dataloader";
import type { EntityManager } from "typeorm";
import type { Project } from "../../entities";
import {
  projectPersonKey,
  READ_CHUNK,
  readChildren,
  readEmailRecords,
  readFieldsOfForms,
  readFieldValues,
  readFormSets,
  readPersons,
  readProjects,
  readRegistrationsByPerson,
  readTags,
  type EmailRecordRow,
  type FieldRow,
  type FieldValueRow,
  type PersonRow,
  type ProjectPersonKey,
  type RegistrationFormRow,
  type RegistrationRef,
  type TagRow,
} from "../../domain/users/user-reads";
import { loadUserSummaries, type UserSummary } from "../../domain/users/user-summary";
import {
  readCartOf,
  readPaymentsOf,
  readUtmOf,
  type CartLineDetail,
  type PaymentDetail,
  type UtmDetail,
} from "../../domain/users/user-details";

/** A DataLoader over a batch read that returns a map; keys missing from the map get `fallback`. */
function loaderOf<K, V, C = K>(
  read: (keys: readonly K[]) => Promise<Map<C, V>>,
  fallback: () => V,
  cacheKeyFn?: (key: K) => C,
) {
  return new DataLoader<K, V, C>(
    async (keys) => {
      const found = await read(keys);
      return keys.map((key) => found.get(cacheKeyFn ? cacheKeyFn(key) : (key as unknown as C)) ?? fallback());
    },
    { maxBatchSize: READ_CHUNK, cacheKeyFn },
  );
}

/**
 * The loaders of one request. Created per request and never shared: the cache holds data the
 * caller's organization may see, and it must not outlive the request (or a mutation in it).
 */
export function createUserLoaders(em: EntityManager) {
  const loaders = {
    summaries: loaderOf<number, UserSummary | null>(
      (uids) => loadUserSummaries(em, uids),
      () => null,
    ),
    formSets: loaderOf<number, RegistrationFormRow[]>(
      (uids) => readFormSets(em, uids),
      () => [],
    ),
    fieldsOfForm: loaderOf<number, FieldRow[]>(
      (formIds) => readFieldsOfForms(em, formIds),
      () => [],
    ),
    fieldValues: loaderOf<number, FieldValueRow[]>(
      (uids) => readFieldValues(em, uids),
      () => [],
    ),
    emails: loaderOf<number, EmailRecordRow[]>(
      (uids) => readEmailRecords(em, uids),
      () => [],
    ),
    tags: loaderOf<number, TagRow[]>(
      (uids) => readTags(em, uids),
      () => [],
    ),
    cartLines: loaderOf<number, CartLineDetail[]>(
      (uids) => readCartOf(em, uids),
      () => [],
    ),
    payments: loaderOf<number, PaymentDetail[]>(
      (uids) => readPaymentsOf(em, uids),
      () => [],
    ),
    utm: loaderOf<number, UtmDetail | null>(
      (uids) => readUtmOf(em, uids),
      () => null,
    ),
    persons: loaderOf<number, PersonRow | null>(
      (ids) => readPersons(em, ids),
      () => null,
    ),
    projects: loaderOf<number, Project | null>(
      (ids) => readProjects(em, ids),
      () => null,
    ),
    children: loaderOf<ProjectPersonKey, RegistrationRef[], string>(
      (keys) => readChildren(em, keys),
      () => [],
      projectPersonKey,
    ),
    registrationsByPerson: loaderOf<ProjectPersonKey, RegistrationRef | null, string>(
      (keys) => readRegistrationsByPerson(em, keys),
      () => null,
      projectPersonKey,
    ),
  };
  return {
    ...loaders,
    /** After a mutation: later reads in the same request must see what it wrote. */
    clearAll() {
      for (const loader of Object.values(loaders)) loader.clearAll();
    },
  };
}

export type UserLoaders = ReturnType<typeof createUserLoaders>;
