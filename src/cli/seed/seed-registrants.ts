import { randomBytes } from "node:crypto";
import type { DataSource, EntityManager, EntityTarget, ObjectLiteral } from "typeorm";
import { hashPassword } from "../../auth/secrets";
import { createRequestContext } from "../../domain/context";
import { DomainError } from "../../domain/errors";
import { readProjectFields, readProjectForms, type FieldDefinition, type FormDefinition } from "../../data/forms.data";
import { findProject } from "../../data/projects.data";
import { lineAmountCents } from "../../domain/account-totals";
import { encodeAnswer, isChoiceType } from "../../domain/forms/field-value-codec";
import { initialForms, type RegistrationLevel } from "../../domain/forms/form-rules";
import { bucketOf, countDelta, emptyCounters } from "../../domain/projects/project-counters";
import { inTransaction } from "../../domain/transaction";
import { insertPlainRows } from "../../db/insert-rows";
import {
  CartLine,
  FieldValue,
  Payment,
  Person,
  Product,
  PRODUCT_BASE_TYPES,
  ProductCategory,
  type Project,
  Registration,
  RegistrationForm,
  RegistrationTag,
  Status,
  Tag,
} from "../../entities";
import { databaseKind, type DatabaseKind } from "../cli-session";

/** Every seeded person with a password shares this one (hashed once per run). */
export const SEED_PASSWORD = "seed-password";
export const DEFAULT_SEED_BATCH = 1_000;
export const MAX_SEED_BATCH = 10_000;

// Bound parameters per statement: SQLite's SQLITE_MAX_VARIABLE_NUMBER, and the 16-bit
// placeholder count of the MySQL protocol.
const BIND_LIMIT: Record<DatabaseKind, number> = { sqlite: 32_766, "mysql-family": 65_535 };

export interface SeedOptions {
  groupId: number;
  users: number;
  /** Registrants per chunk; each chunk is one transaction. */
  batchSize?: number;
  /** Called after each committed chunk with the number of registrants seeded so far. */
  onChunk?: (seeded: number) => void;
  now?: Date;
  /** Seed of the pseudo-random choices, so a run can be repeated with the same shape. */
  randomSeed?: number;
  /** Bound parameters per statement; default the database's limit (tests lower it to split inserts). */
  maxBindVariables?: number;
}

/** Rows written, per kind. */
export interface SeedCounts {
  persons: number;
  registrations: number;
  forms: number;
  completedForms: number;
  values: number;
  tags: number;
  cartLines: number;
  payments: number;
}

export interface SeedResult extends SeedCounts {
  chunks: number;
  /** Every seeded username starts with this (and ends with @seed.test). */
  usernamePrefix: string;
}

interface PlannedForm {
  id: number;
  fields: FieldDefinition[];
}

/** What a new registrant of the project gets, read once before the first chunk. */
interface SeedPlan {
  project: Project;
  /** Initial forms of a parent (or individual) and of a child registration. */
  initialForms: Record<RegistrationLevel, PlannedForm[]>;
  statusIds: number[];
  /** The statuses among them that exclude a registration. */
  excludingStatusIds: Set<number>;
  tagIds: number[];
  /** What a registrant of each level may buy, as add_product would allow it. */
  products: Record<RegistrationLevel, SeedProduct[]>;
  categories: Map<number, { quotaOrdered: number | null; interchange: boolean }>;
}

interface SeedProduct {
  id: number;
  priceCents: number;
  baseType: number;
  onlyOne: boolean;
  categoryId: number | null;
}

const PAYMENT_METHODS = ["card", "bank transfer", "cheque"];
const UTM_SOURCES = ["newsletter", "facebook", "google", null, null];

/**
 * Bulk synthetic registrants in an existing project, with multi-row inserts: persons,
 * registrations, the initial form set (some completed, with answers to every field of a completed
 * form), statuses, tags, carts and payments. In a family project every third registrant of a
 * chunk is a child of the one before (so a parent is always in its child's chunk). Each chunk of
 * `batchSize` registrants is one transaction, so an interrupted run leaves only whole chunks.
 */
export async function seedRegistrants(dataSource: DataSource, options: SeedOptions): Promise<SeedResult> {
  const batchSize = Math.min(options.batchSize ?? DEFAULT_SEED_BATCH, MAX_SEED_BATCH);
  const plan = await readSeedPlan(dataSource.manager, options.groupId);
  const random = pseudoRandom(options.randomSeed ?? 20270101);
  const shared: SharedRowValues = {
    // One slow scrypt hash for the whole run: hashing per person would take hours.
    passwordHash: await hashPassword(SEED_PASSWORD),
    usernamePrefix: `seed-${Date.now().toString(36)}${randomBytes(3).toString("hex")}-`,
    now: options.now ?? new Date(),
    bindLimit: Math.min(options.maxBindVariables ?? Infinity, BIND_LIMIT[databaseKind(dataSource)]),
  };

  const result: SeedResult = { ...emptyCounts(), chunks: 0, usernamePrefix: shared.usernamePrefix };
  for (let start = 0; start < options.users; start += batchSize) {
    const size = Math.min(batchSize, options.users - start);
    const ctx = createRequestContext(dataSource, `seed-chunk-${result.chunks + 1}`);
    let counts: SeedCounts;
    try {
      counts = await inTransaction(ctx, ({ em }) => seedChunk(em, plan, shared, random, start, size));
    } catch (error) {
      throw new SeedInterruptedError(result, error);
    }
    for (const key of Object.keys(counts) as (keyof SeedCounts)[]) result[key] += counts[key];
    result.chunks += 1;
    options.onChunk?.(start + size);
  }
  return result;
}

/** A chunk failed: it was rolled back, the chunks before it (counted in `committed`) stay. */
export class SeedInterruptedError extends Error {
  constructor(
    readonly committed: SeedResult,
    readonly cause: unknown,
  ) {
    super(
      `seed stopped after ${committed.registrations} registrants (${committed.chunks} whole chunks kept, the failed one rolled back): ${cause instanceof Error ? cause.message : String(cause)}`,
    );
    this.name = "SeedInterruptedError";
  }
}

async function readSeedPlan(em: EntityManager, groupId: number): Promise<SeedPlan> {
  const project = await findProject(em, groupId);
  if (!project) throw new DomainError("NOT_FOUND", `project (group_id) ${groupId} does not exist`);
  const [forms, fields, statuses, tags, products, categories] = await Promise.all([
    readProjectForms(em, groupId),
    readProjectFields(em, groupId),
    em.find(Status, { where: { projectId: groupId }, order: { id: "ASC" } }),
    em.find(Tag, { where: { projectId: groupId }, order: { id: "ASC" } }),
    em.find(Product, { where: { projectId: groupId }, order: { id: "ASC" } }),
    em.find(ProductCategory, { where: { projectId: groupId } }),
  ]);
  // Discounts and session holders are not bought on their own; private products belong to one user.
  const buyable = (level: "parent" | "child") =>
    products
      .filter(
        (product) =>
          !product.isPrivate &&
          (product.level === "all" || product.level === level) &&
          product.baseType !== PRODUCT_BASE_TYPES.discount &&
          product.baseType !== PRODUCT_BASE_TYPES.sessionHolder,
      )
      .map((product) => ({
        id: product.id,
        priceCents: product.priceCents,
        baseType: product.baseType,
        onlyOne: product.onlyOne,
        categoryId: product.categoryId,
      }));
  const planned = (form: FormDefinition): PlannedForm => ({
    id: form.id,
    fields: fields.filter((field) => field.formId === form.id),
  });
  return {
    project,
    initialForms: {
      parent: initialForms(forms, "parent").map(planned),
      child: initialForms(forms, "child").map(planned),
    },
    statusIds: statuses.map((status) => status.id),
    excludingStatusIds: new Set(statuses.filter((status) => status.isExcluded).map((status) => status.id)),
    tagIds: tags.map((tag) => tag.id),
    products: { parent: buyable("parent"), child: buyable("child") },
    categories: new Map(
      categories.map((category) => [
        category.id,
        { quotaOrdered: category.quotaOrdered, interchange: category.interchange },
      ]),
    ),
  };
}

interface SharedRowValues {
  passwordHash: string;
  usernamePrefix: string;
  now: Date;
  bindLimit: number;
}

async function seedChunk(
  em: EntityManager,
  plan: SeedPlan,
  shared: SharedRowValues,
  random: Random,
  start: number,
  size: number,
): Promise<SeedCounts> {
  const organizationId = plan.project.organizationId;
  const isChild = (j: number) => plan.project.familySystem && j % 3 === 2;

  const persons = Array.from({ length: size }, (_, j) => {
    // Zero-padded, so usernames sort in insertion order: the unique (organization, username)
    // index grows at its end instead of splitting pages all over (it outgrows the buffer pool at 1M).
    const username = `${shared.usernamePrefix}${String(start + j).padStart(8, "0")}@seed.test`;
    const child = isChild(j);
    return {
      organizationId,
      username,
      // Children sign in through their parent, as in the demo data.
      passwordHash: child ? null : shared.passwordHash,
      mainEmail: child ? null : username,
      firstName: random.pick(FIRST_NAMES),
      lastName: random.pick(LAST_NAMES),
      orgName: null,
    };
  });
  await insertMany(em, Person, persons, shared.bindLimit);
  // Ids come from the database: read them back by the run's unique usernames.
  const personIds = await selectIdMap(
    shared.bindLimit,
    persons.map((p) => p.username),
    (batch) =>
      em
        .createQueryBuilder(Person, "p")
        .select("p.id", "id")
        .addSelect("p.username", "key")
        .where("p.organizationId = :organizationId", { organizationId })
        .andWhere("p.username IN (:...batch)", { batch })
        .getRawMany<{ id: number | string; key: string }>(),
  );
  const personIdOf = (j: number) => personIds.get(persons[j].username)!;

  const registrations = persons.map((_, j) => ({
    projectId: plan.project.id,
    personId: personIdOf(j),
    connectedTo: isChild(j) ? personIdOf(j - 1) : null,
    statusId: plan.statusIds.length > 0 && random.chance(0.8) ? random.pick(plan.statusIds) : null,
    star: random.chance(0.1),
    applicationDate: new Date(shared.now.getTime() - random.int(0, (180 * DAY_MS) / 1000) * 1000),
    updatedAt: shared.now,
    assignedAdminId: null,
    utmSource: random.pick(UTM_SOURCES),
  }));
  // Last changed up to 30 days after applying (at most now), so modified_since near now selects
  // few. Derived from the person id rather than drawn, so the seeded data stays what it was.
  for (const registration of registrations)
    registration.updatedAt = new Date(
      Math.min(
        shared.now.getTime(),
        registration.applicationDate.getTime() + ((registration.personId * 7919) % ((30 * DAY_MS) / 1000)) * 1000,
      ),
    );
  await insertMany(em, Registration, registrations, shared.bindLimit);
  const uids = await selectIdMap(
    shared.bindLimit,
    registrations.map((r) => r.personId),
    (batch) =>
      em
        .createQueryBuilder(Registration, "r")
        .select("r.uid", "id")
        .addSelect("r.personId", "key")
        .where("r.projectId = :projectId", { projectId: plan.project.id })
        .andWhere("r.personId IN (:...batch)", { batch })
        .getRawMany<{ id: number | string; key: number | string }>(),
  );

  const formRows: Partial<RegistrationForm>[] = [];
  const valueRows: Partial<FieldValue>[] = [];
  const tagRows: Partial<RegistrationTag>[] = [];
  const cartRows: Partial<CartLine>[] = [];
  const paymentRows: Partial<Payment>[] = [];
  // The chunk's counters, from the rows it writes (a parent is always in its child's chunk).
  const counters = emptyCounters();
  const isExcluded = (j: number) => {
    const statusId = registrations[j].statusId;
    return statusId !== null && plan.excludingStatusIds.has(statusId);
  };
  registrations.forEach((registration, j) => {
    const registrationId = uids.get(registration.personId)!;
    const applied = registration.applicationDate;
    const laterThanApplied = () =>
      new Date(Math.min(shared.now.getTime(), applied.getTime() + random.int(60, (14 * DAY_MS) / 1000) * 1000));
    for (const form of plan.initialForms[isChild(j) ? "child" : "parent"]) {
      const completed = random.chance(0.6);
      const completedAt = completed ? laterThanApplied() : null;
      formRows.push({
        registrationId,
        formId: form.id,
        completed,
        completedAt,
        submittedAt: completedAt,
        addedAt: applied,
      });
      // A completed form has an answer to every field; an open one to some.
      for (const field of form.fields) {
        if (!completed && !random.chance(0.3)) continue;
        const answer = answerFor(field, random, persons[j].username);
        valueRows.push({ registrationId, fieldId: field.id, value: answer, updatedAt: completedAt ?? applied });
      }
    }
    for (const tagId of plan.tagIds) if (random.chance(0.25)) tagRows.push({ registrationId, tagId });
    let orderCents = 0;
    const unitsInCategory = new Map<number, number>();
    for (const product of plan.products[isChild(j) ? "child" : "parent"]) {
      if (!random.chance(0.4)) continue;
      const quantity = product.onlyOne ? 1 : random.int(1, 2);
      const category = product.categoryId === null ? undefined : plan.categories.get(product.categoryId);
      const unitsSoFar = unitsInCategory.get(product.categoryId ?? 0) ?? 0;
      // Respect the category rules add_product enforces, so seeded carts are ones a client could build.
      if (category?.interchange && unitsSoFar > 0) continue;
      if (category?.quotaOrdered != null && unitsSoFar + quantity > category.quotaOrdered) continue;
      unitsInCategory.set(product.categoryId ?? 0, unitsSoFar + quantity);
      orderCents += lineAmountCents(quantity, product.priceCents);
      cartRows.push({
        registrationId,
        productId: product.id,
        quantity,
        unitPriceCents: product.priceCents,
        createdAt: applied,
        recurringStartDate: product.baseType === PRODUCT_BASE_TYPES.subscription ? startOfUtcDay(applied) : null,
      });
    }
    const bucket =
      counters[
        bucketOf({ isChild: isChild(j), excluded: isExcluded(j), parentExcluded: isChild(j) && isExcluded(j - 1) })
      ];
    bucket.registrations += 1;
    bucket.orderCents += orderCents;
    if (orderCents > 0 && random.chance(0.5)) {
      const amountCents = random.chance(0.5) ? orderCents : Math.floor(orderCents / 2);
      bucket.paidCents += amountCents;
      paymentRows.push({
        registrationId,
        amountCents,
        paidAt: laterThanApplied(),
        method: random.pick(PAYMENT_METHODS),
      });
    }
  });
  await insertMany(em, RegistrationForm, formRows, shared.bindLimit);
  await insertMany(em, FieldValue, valueRows, shared.bindLimit);
  await insertMany(em, RegistrationTag, tagRows, shared.bindLimit);
  await insertMany(em, CartLine, cartRows, shared.bindLimit);
  await insertMany(em, Payment, paymentRows, shared.bindLimit);
  countDelta(em, plan.project.id, counters);

  return {
    persons: persons.length,
    registrations: registrations.length,
    forms: formRows.length,
    completedForms: formRows.filter((row) => row.completed).length,
    values: valueRows.length,
    tags: tagRows.length,
    cartLines: cartRows.length,
    payments: paymentRows.length,
  };
}

/**
 * Multi-row INSERTs, as many rows per statement as the bind-variable limit allows (counting every
 * column of the table, an upper bound of the parameters per row).
 */
async function insertMany<T extends ObjectLiteral>(
  em: EntityManager,
  target: EntityTarget<T>,
  rows: Partial<T>[],
  bindLimit: number,
): Promise<void> {
  const rowsPerStatement = Math.max(1, Math.floor(bindLimit / em.dataSource.getMetadata(target).columns.length));
  // No read-back of generated ids per row: they are read back in one query per chunk instead.
  for (let i = 0; i < rows.length; i += rowsPerStatement)
    await insertPlainRows(em, target, rows.slice(i, i + rowsPerStatement));
}

/** Generated ids of the rows just inserted, by their unique key (username, person id). */
async function selectIdMap<K extends string | number>(
  bindLimit: number,
  keys: K[],
  select: (batch: K[]) => Promise<{ id: number | string; key: number | string }[]>,
): Promise<Map<K, number>> {
  const ids = new Map<K, number>();
  const perQuery = bindLimit - 10;
  for (let i = 0; i < keys.length; i += perQuery) {
    for (const row of await select(keys.slice(i, i + perQuery))) {
      ids.set((typeof keys[0] === "number" ? Number(row.key) : row.key) as K, Number(row.id));
    }
  }
  if (ids.size !== keys.length) throw new Error(`seed: read back ${ids.size} of ${keys.length} generated ids`);
  return ids;
}

function emptyCounts(): SeedCounts {
  return { persons: 0, registrations: 0, forms: 0, completedForms: 0, values: 0, tags: 0, cartLines: 0, payments: 0 };
}

const DAY_MS = 86_400_000;

const FIRST_NAMES = [
  "Ada",
  "Ben",
  "Cleo",
  "Dev",
  "Eva",
  "Finn",
  "Gia",
  "Hugo",
  "Iris",
  "Jon",
  "Kim",
  "Leo",
  "Mia",
  "Noor",
  "Omar",
  "Pia",
];
const LAST_NAMES = [
  "Adams",
  "Baker",
  "Chen",
  "Diaz",
  "Evans",
  "Fox",
  "Garcia",
  "Hall",
  "Ito",
  "Jones",
  "Khan",
  "Lopez",
  "Moss",
  "Ngata",
];
const WORDS = [
  "camp",
  "river",
  "forest",
  "canoe",
  "music",
  "trail",
  "lake",
  "stars",
  "garden",
  "bridge",
  "maple",
  "pine",
];

function answerFor(field: FieldDefinition, random: Random, email: string): string {
  if (isChoiceType(field.fieldType)) {
    const options = field.options.length > 0 ? field.options : ["yes"];
    if (field.fieldType === "single_choice") return encodeAnswer(field.fieldType, [random.pick(options)]);
    const chosen = options.filter(() => random.chance(0.5));
    return encodeAnswer(field.fieldType, chosen.length > 0 ? chosen : [options[0]]);
  }
  switch (field.fieldType) {
    case "email":
      return email;
    case "number":
      return String(random.int(1, 99));
    case "date":
      return `20${random.int(10, 19)}-0${random.int(1, 9)}-${random.int(10, 28)}`;
    case "phone":
      return `+1 555 01${random.int(10, 99)}`;
    case "textarea":
      return `${random.pick(WORDS)} ${random.pick(WORDS)} ${random.pick(WORDS)}.`;
    default:
      return `${random.pick(WORDS)} ${random.int(1, 999)}`;
  }
}

interface Random {
  chance(probability: number): boolean;
  int(min: number, max: number): number;
  pick<T>(values: readonly T[]): T;
}

/** mulberry32: small, fast and repeatable for a given seed (not for secrets). */
function pseudoRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    chance: (probability) => next() < probability,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (values) => values[Math.floor(next() * values.length)],
  };
}

function startOfUtcDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}
