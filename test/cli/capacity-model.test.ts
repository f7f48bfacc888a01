import { databaseLimit, planPeak, type KindCost } from "../../src/cli/capacity/capacity-model";

// The capacity model of `regapi capacity` (docs/scale-out.md#capacity-model): the arithmetic from
// measured CPU per request to instances, machines and database servers, on figures chosen so
// each result can be worked out by hand.

const create: KindCost = { kind: "create with password", serviceMs: 50, eventLoopMs: 6, databaseMs: 5 };
const read: KindCost = { kind: "read (get_info)", serviceMs: 2, eventLoopMs: 1.5, databaseMs: 1 };
const machine = { cores: 2, utilisation: 0.7 };

describe("the capacity model", () => {
  it("10,000 registrations in 10 minutes: 16.7 creates/s, the service cores and database cores they cost", () => {
    const plan = planPeak({ registrations: 10_000, minutes: 10, readsPerRegistration: 0 }, create, read, machine);
    expect(plan.createsPerSecond).toBeCloseTo(16.667, 3);
    // 16.67/s × 50 ms = 0.83 cores of service; its event loop 16.67 × 6 ms = 0.1 core: one instance.
    expect(plan.serviceCores).toBeCloseTo(0.833, 3);
    expect(plan).toMatchObject({ instances: 1, serviceMachines: 1, databaseServers: 1, writerSuffices: true });
    expect(plan.databaseCores).toBeCloseTo(0.083, 3);
  });

  it("reads add instances by their event loop and replicas once the writer is full", () => {
    // 100 reads per registration: 1,667 reads/s. Event loops: 0.1 + 2.5 = 2.6 cores → 4 instances
    // at 70 %; all threads: 0.83 + 3.33 = 4.17 cores → 3 machines of 1.4 usable cores.
    const plan = planPeak({ registrations: 10_000, minutes: 10, readsPerRegistration: 100 }, create, read, machine);
    expect(plan.readsPerSecond).toBeCloseTo(1666.7, 1);
    expect(plan.instances).toBe(4);
    expect(plan.serviceMachines).toBe(3);
    // Database: 0.083 (writes) + 1.667 (reads) = 1.75 cores > 1.4 usable on one server: the writer
    // keeps 1.317 cores of reads, a replica takes the other 0.35.
    expect(plan.databaseCores).toBeCloseTo(1.75, 2);
    expect(plan).toMatchObject({ writerSuffices: false, databaseServers: 2 });
  });

  it("names where one database server stops: creates per second, and reads per registration beside a rate", () => {
    // 1,400 usable ms per second / 5 ms per create = 280 creates/s; beside 16.67 creates/s
    // (83.3 ms) the 1,316.7 ms left take 1,316.7 reads/s = 79 per registration.
    const limit = databaseLimit(create, read, machine, 10_000 / 600)!;
    expect(limit.createsPerSecond).toBeCloseTo(280, 6);
    expect(limit.readsPerRegistration).toBeCloseTo(79, 0);
  });

  it("without the database's figures (SQLite inside the service) plans the service alone", () => {
    const inProcess = { ...create, databaseMs: null };
    const plan = planPeak({ registrations: 1000, minutes: 1, readsPerRegistration: 5 }, inProcess, read, machine);
    expect(plan).toMatchObject({ databaseCores: null, databaseServers: null, writerSuffices: null });
    expect(databaseLimit(inProcess, read, machine, 10)).toBeNull();
  });
});
