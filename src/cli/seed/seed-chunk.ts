import type { EntityManager } from "typeorm";
import { writeSearchDocuments } from "../../data/person-search.data";
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
import type { SeedPlan } from "./seed-plan";
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
  await insertSeedRows(em, Person, persons, shared.bindLimit);
  // Ids come from the database: read them back by the run's unique usernames.
  const personIds = await readPersonIdsByUsername(
    em,
    organizationId,
    persons.map((p) => p.username),
    shared.bindLimit,
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
  await insertSeedRows(em, Registration, registrations, shared.bindLimit);
  const uids = await readUidsByPerson(
    em,
    plan.project.id,
    registrations.map((r) => r.personId),
    shared.bindLimit,
  );
  await writeSearchDocuments(em, { uids: [...uids.values()], fresh: true });

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
    const tally = new CategoryTally();
    for (const product of plan.products[isChild(j) ? "child" : "parent"]) {
      if (!random.chance(0.4)) continue;
      const quantity = product.onlyOne ? 1 : random.int(1, 2);
      const category = product.categoryId === null ? null : (plan.categories.get(product.categoryId) ?? null);
      // The category rules add_product enforces, so seeded carts are ones a client could build.
      if (tally.refusal(product.categoryId, category, quantity)) continue;
      tally.count(product.categoryId, quantity);
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
  await insertSeedRows(em, RegistrationForm, formRows, shared.bindLimit);
  await insertSeedRows(em, FieldValue, valueRows, shared.bindLimit);
  await insertSeedRows(em, RegistrationTag, tagRows, shared.bindLimit);
  await insertSeedRows(em, CartLine, cartRows, shared.bindLimit);
  await insertSeedRows(em, Payment, paymentRows, shared.bindLimit);
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
