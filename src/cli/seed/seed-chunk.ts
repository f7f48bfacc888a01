import type { EntityManager } from "typeorm";
import { chunked } from "../../data/batch";
import { putSearchDocuments, searchValuesOf } from "../../data/person-search.data";
import { insertSeedRows, readPersonIdsByUsername, readUidsByPerson } from "../../data/seed.data";
import { lineAmountCents } from "../../domain/account-totals";
import { CategoryTally } from "../../domain/carts/cart-rules";
import { bucketOf, countDelta, emptyCounters } from "../../domain/projects/project-counters";
import {
  CartLine,
  FieldValue,
  Payment,
  Person,
  PRODUCT_BASE_TYPES,
  Registration,
  RegistrationForm,
  RegistrationTag,
} from "../../entities";
import type { PlannedForm, SeedPlan, SeedProduct } from "./seed-plan";
import {
  answerFor,
  DAY_MS,
  FIRST_NAMES,
  LAST_NAMES,
  PAYMENT_METHODS,
  startOfUtcDay,
  UTM_SOURCES,
  type Random,
} from "./synthetic-values";

// One chunk of seeded registrants: its rows built in memory, then written with multi-row inserts
// (one transaction, opened by the caller).

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

export function emptyCounts(): SeedCounts {
  return { persons: 0, registrations: 0, forms: 0, completedForms: 0, values: 0, tags: 0, cartLines: 0, payments: 0 };
}

export interface SharedRowValues {
  passwordHash: string;
  usernamePrefix: string;
  now: Date;
  bindLimit: number;
}

/** Writes `size` registrants, numbered from `start` within the run, and returns what it wrote. */
export async function seedChunk(
  em: EntityManager,
  plan: SeedPlan,
  shared: SharedRowValues,
  random: Random,
  start: number,
  size: number,
): Promise<SeedCounts> {
  const persons = await seedPersons(em, plan, shared, random, start, size);
  const { registrations, uids } = await seedRegistrations(em, plan, shared, random, persons);
  const rows: ChunkRows = { forms: [], values: [], tags: [], cartLines: [], payments: [] };
  // The chunk's counters, from the rows it writes (a parent is always in its child's chunk).
  const counters = emptyCounters();
  const isExcluded = (j: number) => {
    const statusId = registrations[j].statusId;
    return statusId !== null && plan.excludingStatusIds.has(statusId);
  };
  // One registration after the other, each drawing its values in the same order, so a seed
  // gives the same data on every run.
  registrations.forEach((registration, j) => {
    const registrationId = uids.get(registration.personId)!;
    const applied = registration.applicationDate;
    const laterThanApplied = () =>
      new Date(Math.min(shared.now.getTime(), applied.getTime() + random.int(60, (14 * DAY_MS) / 1000) * 1000));
    const child = isChildAt(plan, j);
    const kind = child ? "child" : "parent";
    addFormRows(
      rows,
      plan.initialForms[kind],
      { registrationId, applied, laterThanApplied },
      random,
      persons[j].username,
    );
    for (const tagId of plan.tagIds) if (random.chance(0.25)) rows.tags.push({ registrationId, tagId });
    const orderCents = addCartRows(rows, plan, plan.products[kind], { registrationId, applied }, random);
    const bucket =
      counters[bucketOf({ isChild: child, excluded: isExcluded(j), parentExcluded: child && isExcluded(j - 1) })];
    bucket.registrations += 1;
    bucket.orderCents += orderCents;
    bucket.paidCents += addPaymentRow(rows, { registrationId, laterThanApplied }, orderCents, random);
  });
  await insertSeedRows(em, RegistrationForm, rows.forms, shared.bindLimit);
  await insertSeedRows(em, FieldValue, rows.values, shared.bindLimit);
  await insertSeedRows(em, RegistrationTag, rows.tags, shared.bindLimit);
  await insertSeedRows(em, CartLine, rows.cartLines, shared.bindLimit);
  await insertSeedRows(em, Payment, rows.payments, shared.bindLimit);
  countDelta(em, plan.project.id, counters);

  return {
    persons: persons.length,
    registrations: registrations.length,
    forms: rows.forms.length,
    completedForms: rows.forms.filter((row) => row.completed).length,
    values: rows.values.length,
    tags: rows.tags.length,
    cartLines: rows.cartLines.length,
    payments: rows.payments.length,
  };
}

/** In a family project every third registrant is the child of the one before. */
const isChildAt = (plan: SeedPlan, j: number) => plan.project.familySystem && j % 3 === 2;

/** The rows a chunk writes after its persons and registrations, by table. */
interface ChunkRows {
  forms: Partial<RegistrationForm>[];
  values: Partial<FieldValue>[];
  tags: Partial<RegistrationTag>[];
  cartLines: Partial<CartLine>[];
  payments: Partial<Payment>[];
}

type SeededPerson = Pick<
  Person,
  "organizationId" | "passwordHash" | "mainEmail" | "firstName" | "lastName" | "orgName"
> & {
  username: string;
};

/** The chunk's persons, written, each with the id the database gave it. */
async function seedPersons(
  em: EntityManager,
  plan: SeedPlan,
  shared: SharedRowValues,
  random: Random,
  start: number,
  size: number,
): Promise<(SeededPerson & { id: number })[]> {
  const organizationId = plan.project.organizationId;
  const persons: SeededPerson[] = Array.from({ length: size }, (_, j) => {
    // Zero-padded, so usernames sort in insertion order: the unique (organization, username)
    // index grows at its end instead of splitting pages all over once it outgrows the buffer pool.
    const username = `${shared.usernamePrefix}${String(start + j).padStart(8, "0")}@seed.test`;
    const child = isChildAt(plan, j);
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
  await insertSeedRows(em, Person, persons, shared.bindLimit);
  // Ids come from the database: read them back by the run's unique usernames.
  const personIds = await readPersonIdsByUsername(
    em,
    organizationId,
    persons.map((p) => p.username),
    shared.bindLimit,
  );
  return persons.map((person) => ({ ...person, id: personIds.get(person.username)! }));
}

/** A registration of each person in the project, written, and the uid of each by person. */
async function seedRegistrations(
  em: EntityManager,
  plan: SeedPlan,
  shared: SharedRowValues,
  random: Random,
  persons: (SeededPerson & { id: number })[],
) {
  // The persons are in hand: their documents and sort names are written from them, not read back.
  const search = persons.map(searchValuesOf);
  const registrations = persons.map((person, j) => ({
    projectId: plan.project.id,
    personId: person.id,
    connectedTo: isChildAt(plan, j) ? persons[j - 1].id : null,
    statusId: plan.statusIds.length > 0 && random.chance(0.8) ? random.pick(plan.statusIds) : null,
    star: random.chance(0.1),
    applicationDate: new Date(shared.now.getTime() - random.int(0, (180 * DAY_MS) / 1000) * 1000),
    updatedAt: shared.now,
    assignedAdminId: null,
    utmSource: random.pick(UTM_SOURCES),
    sortName: search[j].sortName,
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
  await insertSeedRows(em, Registration, registrations, shared.bindLimit);
  const uids = await readUidsByPerson(
    em,
    plan.project.id,
    registrations.map((r) => r.personId),
    shared.bindLimit,
  );
  const documents = persons.map((person, j) => ({
    uid: uids.get(person.id)!,
    projectId: plan.project.id,
    text: search[j].text,
  }));
  await chunked(documents, (chunk) => putSearchDocuments(em, chunk, true));
  return { registrations, uids };
}

/** The registration's initial forms, most completed; a completed form answers every field, an open one some. */
function addFormRows(
  rows: ChunkRows,
  forms: PlannedForm[],
  registration: { registrationId: number; applied: Date; laterThanApplied: () => Date },
  random: Random,
  username: string,
): void {
  const { registrationId, applied } = registration;
  for (const form of forms) {
    const completed = random.chance(0.6);
    const completedAt = completed ? registration.laterThanApplied() : null;
    rows.forms.push({
      registrationId,
      formId: form.id,
      completed,
      completedAt,
      submittedAt: completedAt,
      addedAt: applied,
    });
    for (const field of form.fields) {
      if (!completed && !random.chance(0.3)) continue;
      const answer = answerFor(field, random, username);
      rows.values.push({ registrationId, fieldId: field.id, value: answer, updatedAt: completedAt ?? applied });
    }
  }
}

/**
 * Some of the registration's products in its cart, within the category rules add_product
 * enforces, so seeded carts are ones a client could build. Returns the order's amount.
 */
function addCartRows(
  rows: ChunkRows,
  plan: SeedPlan,
  products: SeedProduct[],
  registration: { registrationId: number; applied: Date },
  random: Random,
): number {
  const { registrationId, applied } = registration;
  let orderCents = 0;
  const tally = new CategoryTally();
  for (const product of products) {
    if (!random.chance(0.4)) continue;
    const quantity = product.onlyOne ? 1 : random.int(1, 2);
    const category = product.categoryId === null ? null : (plan.categories.get(product.categoryId) ?? null);
    if (tally.refusal(product.categoryId, category, quantity)) continue;
    tally.count(product.categoryId, quantity);
    orderCents += lineAmountCents(quantity, product.priceCents);
    rows.cartLines.push({
      registrationId,
      productId: product.id,
      quantity,
      unitPriceCents: product.priceCents,
      createdAt: applied,
      recurringStartDate: product.baseType === PRODUCT_BASE_TYPES.subscription ? startOfUtcDay(applied) : null,
    });
  }
  return orderCents;
}

/** Half the orders get a payment, of all or half the amount. Returns the amount paid. */
function addPaymentRow(
  rows: ChunkRows,
  registration: { registrationId: number; laterThanApplied: () => Date },
  orderCents: number,
  random: Random,
): number {
  if (orderCents <= 0 || !random.chance(0.5)) return 0;
  const amountCents = random.chance(0.5) ? orderCents : Math.floor(orderCents / 2);
  rows.payments.push({
    registrationId: registration.registrationId,
    amountCents,
    paidAt: registration.laterThanApplied(),
    method: random.pick(PAYMENT_METHODS),
  });
  return amountCents;
}
