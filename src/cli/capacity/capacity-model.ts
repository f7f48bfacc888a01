// The capacity model of `regapi capacity` (docs/scale-out.md#capacity-model): from the CPU each
// request kind costs the service and the database, measured on this machine, how many instances
// and database servers a registration peak needs, and where the database becomes the limit.
// Pure arithmetic: src/cli/capacity/measure-capacity.ts measures the figures.

/** What one request of a kind cost, in CPU ms, measured over many. */
export interface KindCost {
  kind: string;
  /** The service process, every thread (the event loop, scrypt's thread pool, GC). */
  serviceMs: number;
  /** The service's event loop (main thread) alone: one core per instance at most. */
  eventLoopMs: number;
  /** The database server, every thread; null when it could not be measured (SQLite: in serviceMs). */
  databaseMs: number | null;
}

export interface Peak {
  registrations: number;
  minutes: number;
  /** Reads (a registrant's get_info) per registration during the peak. */
  readsPerRegistration: number;
}

export interface Machine {
  /** Cores of each machine the model places instances and database servers on. */
  cores: number;
  /** The share of a core the model plans to use (headroom for bursts): 0.7. */
  utilisation: number;
}

export interface PeakPlan extends Peak {
  createsPerSecond: number;
  readsPerSecond: number;
  serviceCores: number;
  /** Instances, each one event loop kept under the utilisation, on enough machines for serviceCores. */
  instances: number;
  serviceMachines: number;
  /** The database's cores, all on one server (one writer: MariaDB primary, or Galera through HAProxy). */
  databaseCores: number | null;
  /** Database servers when the writer takes the writes and read replicas the reads (null: not measured). */
  databaseServers: number | null;
  /** Whether one database server (the writer) can take the whole peak. */
  writerSuffices: boolean | null;
}

const per = (perSecond: number, ms: number) => (perSecond * ms) / 1000;

/** How a peak of registrations (each with a password) plus reads lands on instances and database servers. */
export function planPeak(peak: Peak, create: KindCost, read: KindCost, machine: Machine): PeakPlan {
  const createsPerSecond = peak.registrations / (peak.minutes * 60);
  const readsPerSecond = createsPerSecond * peak.readsPerRegistration;
  const serviceCores = per(createsPerSecond, create.serviceMs) + per(readsPerSecond, read.serviceMs);
  const eventLoopCores = per(createsPerSecond, create.eventLoopMs) + per(readsPerSecond, read.eventLoopMs);
  const usable = machine.cores * machine.utilisation;
  const serviceMachines = Math.max(1, Math.ceil(serviceCores / usable));
  const instances = Math.max(serviceMachines, Math.ceil(eventLoopCores / machine.utilisation));
  let databaseCores: number | null = null;
  let databaseServers: number | null = null;
  let writerSuffices: boolean | null = null;
  if (create.databaseMs !== null && read.databaseMs !== null) {
    const writes = per(createsPerSecond, create.databaseMs);
    const reads = per(readsPerSecond, read.databaseMs);
    databaseCores = writes + reads;
    writerSuffices = databaseCores <= usable;
    // The writer keeps what it has room for beside the writes; replicas take the rest of the reads.
    const readsOnReplicas = Math.max(0, reads - Math.max(0, usable - writes));
    databaseServers = writes > usable ? null : 1 + Math.ceil(readsOnReplicas / usable);
  }
  return {
    ...peak,
    createsPerSecond,
    readsPerSecond,
    serviceCores,
    instances,
    serviceMachines,
    databaseCores,
    databaseServers,
    writerSuffices,
  };
}

/**
 * Where one database server stops: the creates per second its usable cores take, and the reads
 * per registration it takes beside `createsPerSecond` creates (null: not measured).
 */
export function databaseLimit(
  create: KindCost,
  read: KindCost,
  machine: Machine,
  createsPerSecond: number,
): { createsPerSecond: number; readsPerRegistration: number } | null {
  if (create.databaseMs === null || read.databaseMs === null || create.databaseMs <= 0 || read.databaseMs <= 0)
    return null;
  const usableMs = machine.cores * machine.utilisation * 1000;
  const left = usableMs - createsPerSecond * create.databaseMs;
  return {
    createsPerSecond: usableMs / create.databaseMs,
    readsPerRegistration: Math.max(0, left / read.databaseMs / createsPerSecond),
  };
}
