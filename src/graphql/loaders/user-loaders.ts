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
  countProjectTags,
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
  beforeTagId: number | null;
  backward: boolean;
}

/** The page a tag page key asks for, whatever the project. */
const tagPageOf = (key: TagPageKey): string =>
  `${key.size}:${key.afterTagId}:${key.beforeTagId}:${key.backward ? "last" : "first"}`;

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

/** What the loaders of one request share: its manager and the summaries it has read. */
interface LoaderScope {
  readonly em: EntityManager;
  /**
   * The summaries read so far, by uid, for the resolvers that present them without waiting on
   * the loader (a page's nodes' metaInfo, execution/schema-patches.ts). They hold the members the
   * operation reads (summary-selection.ts), which every summary field of the operation stays within.
   */
  readonly known: Map<number, UserSummary>;
  /**
   * Once a resolver says the request will want the forms' fields, form sets are read with them
   * (one statement, which primes fieldsOfForm) instead of in a second batch.
   */
  formFieldsWanted: boolean;
  readonly loaders: UserLoaders;
}

const primeSummary = (scope: LoaderScope, summary: UserSummary) => {
  scope.known.set(summary.uid, summary);
};

// Each loader of a request, made when the request first uses it: a users page uses none of them,
// and making them all cost every page fifteen DataLoaders with their caches.
const LOADERS = {
  // A summary read already is found in `known`, not primed into the loader: priming made a
  // promise and a cache entry per user of every page, for a loader the page never asks.
  summaries: ({ em, known }: LoaderScope) =>
    loaderOf<number, UserSummary | null>(
      async (uids) => {
        const unknown = uids.filter((uid) => !known.has(uid));
        if (unknown.length > 0) {
          for (const [uid, summary] of await loadUserSummaries(em, unknown)) known.set(uid, summary);
        }
        return known;
      },
      () => null,
    ),
  fieldsOfForm: ({ em }: LoaderScope) =>
    loaderOf<number, FieldDefinition[]>(
      (formIds) => readFieldsOfForms(em, formIds),
      () => [],
    ),
  formSets: (scope: LoaderScope) =>
    loaderOf<number, RegistrationFormState[]>(
      async (uids) => {
        if (!scope.formFieldsWanted) return readFormSets(scope.em, uids);
        const read = await readFormSetsWithFields(scope.em, uids);
        for (const [formId, fields] of read.fields) scope.loaders.fieldsOfForm.prime(formId, fields);
        return read.formSets;
      },
      () => [],
    ),
  fieldValues: ({ em }: LoaderScope) =>
    loaderOf<number, StoredAnswer[]>(
      (uids) => readStoredAnswers(em, uids),
      () => [],
    ),
  emails: ({ em }: LoaderScope) =>
    loaderOf<number, EmailHistoryEntry[]>(
      (uids) => readEmailHistory(em, uids),
      () => [],
    ),
  cartLines: ({ em }: LoaderScope) =>
    loaderOf<number, CartLineDetail[]>(
      (uids) => readCartOf(em, uids),
      () => [],
    ),
  payments: ({ em }: LoaderScope) =>
    loaderOf<number, PaymentDetail[]>(
      (uids) => readPaymentsOf(em, uids),
      () => [],
    ),
  utm: ({ em }: LoaderScope) =>
    loaderOf<number, UtmDetail | null>(
      (uids) => readUtmOf(em, uids),
      () => null,
    ),
  persons: ({ em }: LoaderScope) =>
    loaderOf<number, PersonRecord | null>(
      (ids) => readPersons(em, ids),
      () => null,
    ),
  projects: ({ em }: LoaderScope) =>
    loaderOf<number, ProjectRecord | null>(
      (ids) => readProjects(em, ids),
      () => null,
    ),
  // Children come with their summaries (one statement), which prime the summaries loader:
  // a child's metaInfo then costs nothing more.
  children: (scope: LoaderScope) =>
    loaderOf<ProjectPersonKey, RegistrationRef[], string>(
      async (keys) => {
        const grouped = new Map<string, RegistrationRef[]>();
        for (const summary of await readChildSummaries(scope.em, keys)) {
          primeSummary(scope, summary);
          const ref = refOfSummary(summary);
          const key = projectPersonKey({ groupId: ref.groupId, cloginId: ref.parentCloginId ?? 0 });
          grouped.set(key, [...(grouped.get(key) ?? []), ref]);
        }
        return grouped;
      },
      () => [],
      projectPersonKey,
    ),
  categoriesOfProject: ({ em }: LoaderScope) =>
    loaderOf<number, CategoryRow[]>(
      (ids) => readProjectCategories(em, ids),
      () => [],
    ),
  productsOfProject: ({ em }: LoaderScope) =>
    loaderOf<number, ProductRow[]>(
      (ids) => readProjectProducts(em, ids),
      () => [],
    ),
  statusesOfProject: ({ em }: LoaderScope) =>
    loaderOf<number, StatusRecord[]>(
      (ids) => readProjectStatuses(em, ids),
      () => [],
    ),
  formsOfProject: ({ em }: LoaderScope) =>
    loaderOf<number, FormDefinition[]>(
      (ids) => readProjectForms(em, ids),
      () => [],
    ),
  // The projects asking for the same page (as `projects { tags(first: n) }` does) share a statement.
  tagPages: ({ em }: LoaderScope) =>
    loaderOf<TagPageKey, TagPage, string>(
      async (keys) => {
        const pages = new Map<string, TagPage>();
        for (const [pageKey, sameKeys] of groupBy(keys, tagPageOf)) {
          const { size, afterTagId, beforeTagId, backward } = sameKeys[0];
          const read = await readProjectTagPages(
            em,
            sameKeys.map((key) => key.groupId),
            { size, afterTagId, beforeTagId, backward },
          );
          for (const [groupId, page] of read) pages.set(`${groupId}:${pageKey}`, page);
        }
        return pages;
      },
      () => ({ tags: [], hasNextPage: false }),
      (key) => `${key.groupId}:${tagPageOf(key)}`,
    ),
  tagCounts: ({ em }: LoaderScope) =>
    loaderOf<number, number>(
      (groupIds) => countProjectTags(em, groupIds),
      () => 0,
    ),
  registrationsByPerson: ({ em }: LoaderScope) =>
    loaderOf<ProjectPersonKey, RegistrationRef | null, string>(
      (keys) => readRegistrationsByPerson(em, keys),
      () => null,
      projectPersonKey,
    ),
};

type Loaders = { readonly [K in keyof typeof LOADERS]: ReturnType<(typeof LOADERS)[K]> };

class RequestLoaders implements LoaderScope {
  readonly known = new Map<number, UserSummary>();
  formFieldsWanted = false;
  /** The loaders made so far (LOADERS), by name. */
  readonly made: Partial<Record<keyof Loaders, DataLoader<never, unknown, unknown>>> = {};

  constructor(readonly em: EntityManager) {}

  get loaders(): UserLoaders {
    return this as unknown as UserLoaders;
  }

  /** A summary read in this request, or undefined. */
  knownSummary(uid: number): UserSummary | undefined {
    return this.known.get(uid);
  }

  /** Puts a summary read by a root read where the summary fields of the request find it. */
  primeSummary(summary: UserSummary): void {
    primeSummary(this, summary);
  }

  /** Form sets read from now on come with their forms' fields. */
  wantFormFields(): void {
    this.formFieldsWanted = true;
  }

  /** After a mutation: later reads in the same request must see what it wrote. */
  clearAll(): void {
    for (const loader of Object.values(this.made)) loader.clearAll();
    this.known.clear();
  }
}

// The loaders are getters of the class, defined once: a request makes only the object above.
for (const name of Object.keys(LOADERS) as (keyof Loaders)[]) {
  Object.defineProperty(RequestLoaders.prototype, name, {
    get(this: RequestLoaders) {
      return (this.made[name] ??= LOADERS[name](this) as unknown as DataLoader<never, unknown, unknown>);
    },
  });
}

/** The loaders of one request, and the summaries it has read. */
export type UserLoaders = RequestLoaders & Loaders;

/**
 * The loaders of one request. Created per request and never shared: the cache holds data the
 * caller's organization may see, and it must not outlive the request (or a mutation in it).
 */
export function createUserLoaders(em: EntityManager): UserLoaders {
  return new RequestLoaders(em) as UserLoaders;
}
