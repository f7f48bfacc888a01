import type { EntityManager } from "typeorm";
import { readRegistrationPlan, type RegistrationPlan } from "../../data/registration-plan.data";

// What registering into a project needs to know of it (its owner, whether it keeps families, its
// initial forms, their mandatory fields and triggers, the fields a call's keys name) is kept per
// process: every create and create_child read it, and registration day creates thousands into one
// project. Nothing needs forgetting: a project's row and its catalogue (forms, fields, triggers
// and the products they add) are inserted by a fixture load, `npx regapi seed` or their own
// `create` actions and never updated or deleted by any write (docs/locking.md), and a fixture
// never reuses an id that exists (check-fixture.ts). Projects not found are not kept, so a project
// loaded later (by this or another process) is read when first asked for. The plans handed out are
// frozen: a caller that changed one would change every later create's.

/** Plans above which the store starts over, so calls with ever new key sets cannot grow it without bound. */
const MAX_PLANS = 2_000;

export class RegistrationPlans {
  private readonly plans = new Map<string, Promise<RegistrationPlan | null>>();

  /** The plan of `projectId` for a call naming `keys`; null when there is no such project. */
  find(em: EntityManager, projectId: number, keys: readonly string[]): Promise<RegistrationPlan | null> {
    const key = `${projectId}\u0000${keys.join("\u0000")}`;
    const kept = this.plans.get(key);
    if (kept) return kept;
    if (this.plans.size >= MAX_PLANS) this.plans.clear();
    const plan = readRegistrationPlan(em, projectId, keys).then((read) => (read === null ? null : deepFreeze(read)));
    this.plans.set(key, plan);
    // An absent project may be loaded later, and a failed read (database down) must be tried again.
    const forget = () => {
      if (this.plans.get(key) === plan) this.plans.delete(key);
    };
    plan.then((read) => read === null && forget(), forget);
    return plan;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
