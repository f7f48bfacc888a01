import DataLoader from "dataloader";
import { groupBy } from "../../common/group-by";
import type { EntityManager } from "typeorm";
import {
  projectPersonKey,
  READ_CHUNK,
  readChildSummaries,
  readEmailHistory,
  readFieldsOfForms,
  readFormSets,
  readFormSetsWithFields,
  readPersons,
  readProjects,
  readRegistrationsByPerson,
  readStoredAnswers,
  refOfSummary,
  type EmailHistoryEntry,
  type FieldDefinition,
  type PersonRecord,
  type ProjectPersonKey,
  type ProjectRecord,
  type RegistrationFormState,
  type RegistrationRef,
  type StoredAnswer,
} from "../../domain/loader-reads";
import {
  readProjectCategories,
  readProjectProducts,
  type CategoryRow,
  type ProductRow,
} from "../../domain/products/product-reads";
import {
  readProjectForms,
  readProjectStatuses,
  readProjectTagPages,
  type FormDefinition,
  type StatusRecord,
  type TagPage,
} from "../../domain/projects/project-catalogues";
import { loadUserSummaries, type UserSummary } from "../../domain/users/user-summary";
import {
  readCartOf,
  readPaymentsOf,
  readUtmOf,
  type CartLineDetail,
  type PaymentDetail,
  type UtmDetail,
} from "../../domain/users/user-details";

/** One page of one project's tags. */
export interface TagPageKey {
  groupId: number;
  size: number;
  afterTagId: number | null;
}

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
  // The summaries read so far, by uid, for the resolvers that present them without waiting on
  // the loader (a page's nodes' metaInfo, execution/schema-patches.ts). They hold the members the
  // operation reads (summary-selection.ts), which every summary field of the operation stays within.
  const known = new Map<number, UserSummary>();
  const summaries = loaderOf<number, UserSummary | null>(
    async (uids) => {
      const read = await loadUserSummaries(em, uids);
      for (const [uid, summary] of read) known.set(uid, summary);
      return read;
    },
    () => null,
  );
  const primeSummary = (summary: UserSummary) => {
    known.set(summary.uid, summary);
    summaries.prime(summary.uid, summary);
  };
  const fieldsOfForm = loaderOf<number, FieldDefinition[]>(
    (formIds) => readFieldsOfForms(em, formIds),
    () => [],
  );
  // Once a resolver says the request will want the forms' fields, form sets are read with them
  // (one statement, which primes fieldsOfForm) instead of in a second batch.
  let formFieldsWanted = false;
  const formSets = loaderOf<number, RegistrationFormState[]>(
    async (uids) => {
      if (!formFieldsWanted) return readFormSets(em, uids);
      const read = await readFormSetsWithFields(em, uids);
      for (const [formId, fields] of read.fields) fieldsOfForm.prime(formId, fields);
      return read.formSets;
    },
    () => [],
  );
  const loaders = {
    summaries,
    formSets,
    fieldsOfForm,
    fieldValues: loaderOf<number, StoredAnswer[]>(
      (uids) => readStoredAnswers(em, uids),
      () => [],
    ),
    emails: loaderOf<number, EmailHistoryEntry[]>(
      (uids) => readEmailHistory(em, uids),
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
    persons: loaderOf<number, PersonRecord | null>(
      (ids) => readPersons(em, ids),
      () => null,
    ),
    projects: loaderOf<number, ProjectRecord | null>(
      (ids) => readProjects(em, ids),
      () => null,
    ),
    // Children come with their summaries (one statement), which prime the summaries loader:
    // a child's metaInfo then costs nothing more.
    children: loaderOf<ProjectPersonKey, RegistrationRef[], string>(
      async (keys) => {
        const grouped = new Map<string, RegistrationRef[]>();
        for (const summary of await readChildSummaries(em, keys)) {
          primeSummary(summary);
          const ref = refOfSummary(summary);
          const key = projectPersonKey({ groupId: ref.groupId, cloginId: ref.parentCloginId ?? 0 });
          grouped.set(key, [...(grouped.get(key) ?? []), ref]);
        }
        return grouped;
      },
      () => [],
      projectPersonKey,
    ),
    categoriesOfProject: loaderOf<number, CategoryRow[]>(
      (ids) => readProjectCategories(em, ids),
      () => [],
    ),
    productsOfProject: loaderOf<number, ProductRow[]>(
      (ids) => readProjectProducts(em, ids),
      () => [],
    ),
    statusesOfProject: loaderOf<number, StatusRecord[]>(
      (ids) => readProjectStatuses(em, ids),
      () => [],
    ),
    formsOfProject: loaderOf<number, FormDefinition[]>(
      (ids) => readProjectForms(em, ids),
      () => [],
    ),
    // The projects asking for the same page (as `projects { tags(first: n) }` does) share a statement.
    tagPages: loaderOf<TagPageKey, TagPage, string>(
      async (keys) => {
        const pages = new Map<string, TagPage>();
        for (const [pageKey, sameKeys] of groupBy(keys, (key) => `${key.size}:${key.afterTagId}`)) {
          const { size, afterTagId } = sameKeys[0];
          const read = await readProjectTagPages(
            em,
            sameKeys.map((key) => key.groupId),
            { size, afterTagId },
          );
          for (const [groupId, page] of read) pages.set(`${groupId}:${pageKey}`, page);
        }
        return pages;
      },
      () => ({ tags: [], hasNextPage: false }),
      (key) => `${key.groupId}:${key.size}:${key.afterTagId}`,
    ),
    registrationsByPerson: loaderOf<ProjectPersonKey, RegistrationRef | null, string>(
      (keys) => readRegistrationsByPerson(em, keys),
      () => null,
      projectPersonKey,
    ),
  };
  return {
    ...loaders,
    /** A summary read in this request, or undefined. */
    knownSummary: (uid: number): UserSummary | undefined => known.get(uid),
    /** Puts a summary read by a root read where the summary fields of the request find it. */
    primeSummary,
    /** Form sets read from now on come with their forms' fields. */
    wantFormFields() {
      formFieldsWanted = true;
    },
    /** After a mutation: later reads in the same request must see what it wrote. */
    clearAll() {
      for (const loader of Object.values(loaders)) loader.clearAll();
      known.clear();
    },
  };
}

export type UserLoaders = ReturnType<typeof createUserLoaders>;
