import { availableParallelism, loadavg } from "node:os";
import type { Command } from "commander";
import { databaseLimit, planPeak, type KindCost, type Machine } from "../capacity/capacity-model";
import { measureCapacity } from "../capacity/measure-capacity";
import { writeLine } from "../cli-io";
import { examples, formatTable, positiveInteger, type CliSession } from "../cli-session";

const UTILISATION = 0.7;

const fixed = (value: number, digits: number) => value.toFixed(digits);
const perCore = (ms: number | null) => (ms === null || ms <= 0 ? "–" : fixed(1000 / ms, 0));

function readsList(raw: string): number[] {
  const values = raw.split(",").map((part) => Number(part.trim()));
  if (values.some((value) => !Number.isInteger(value) || value < 0 || value > 100_000))
    throw new Error("--reads takes whole numbers from 0 to 100000, comma-separated (e.g. 0,10,50)");
  return values;
}

export function registerCapacityCommand(program: Command, session: CliSession): void {
  program
    .command("capacity")
    .summary("measure what each request costs here and plan instances and database servers for a peak")
    .addHelpText(
      "after",
      examples(
        "npx regapi capacity --requests 20",
        "npx regapi capacity --mariadb mariadb://root@127.0.0.1:3306 --requests 300 --registrations 10000 --minutes 10 --reads 0,10,50",
      ),
    )
    .description(
      "Start the service (as `npm start` runs it, NODE_ENV=production) on a scratch database loaded with the demo, " +
        "send it a fixed number of requests of each kind (a registration with and without a password, an update, " +
        "add_email, a read), and read the CPU time the service process and the database server used meanwhile " +
        "(Linux /proc). Prints CPU ms per request and requests per core for each kind, then the capacity model: " +
        "for a peak of registrations (each with a password) plus reads, how many instances and database servers, " +
        "and where the database becomes the limit. The scratch database is a temporary SQLite file, or " +
        "regapi_capacity on the --mariadb server (dropped and re-created; measure the database's share on a server " +
        "nobody else uses: its whole CPU time is counted). DATABASE_URL is not used.",
    )
    .option("--requests <n>", "requests of each kind measured (default 200)", positiveInteger(100_000), 200)
    .option("--clients <n>", "concurrent clients (default 4)", positiveInteger(1000), 4)
    .option("--mariadb <url>", "a MariaDB/MySQL server URL without a database, e.g. mariadb://root@127.0.0.1:3306")
    .option("--registrations <n>", "registrations in the peak (default 10000)", positiveInteger(), 10_000)
    .option("--minutes <n>", "length of the peak in minutes (default 10)", positiveInteger(10_000), 10)
    .option(
      "--reads <list>",
      "reads per registration to plan for, comma-separated (default 0,10,50)",
      readsList,
      [0, 10, 50],
    )
    .option(
      "--cores <n>",
      "cores of each machine planned for (default: this machine's)",
      positiveInteger(4096),
      availableParallelism(),
    )
    .action((options: CapacityOptions) => printCapacity(session, options));
}

interface CapacityOptions {
  requests: number;
  clients: number;
  mariadb?: string;
  registrations: number;
  minutes: number;
  reads: number[];
  cores: number;
}

/** Measures here, then prints the costs table and the plan for the peak the options describe. */
async function printCapacity(session: CliSession, options: CapacityOptions): Promise<void> {
  const out = (line = "") => writeLine(session.io.stdout, line);
  const measured = await measureCapacity({
    requests: options.requests,
    clients: options.clients,
    serverUrl: options.mariadb ?? null,
  });
  out(
    `Measured on this machine (${availableParallelism()} cores, load average ${fixed(loadavg()[0], 1)}): ` +
      `${options.requests} requests of each kind, ${options.clients} clients; database: ${measured.database}` +
      (options.mariadb && measured.databasePid === null ? " (its CPU could not be read: not on this machine)" : "."),
  );
  out();
  const rows = measured.costs.map((cost) => [
    cost.kind,
    fixed(cost.serviceMs, 1),
    fixed(cost.eventLoopMs, 1),
    cost.databaseMs === null ? "–" : fixed(cost.databaseMs, 1),
    perCore(cost.serviceMs),
    perCore(cost.databaseMs),
    fixed(measured.perSecond[cost.kind], 0),
  ]);
  const header = [
    "request",
    "service CPU ms",
    "of it event loop",
    "database CPU ms",
    "per service core/s",
    "per database core/s",
    "measured/s",
  ];
  for (const line of formatTable(header, rows)) out(line);
  const byKind = (kind: string) => measured.costs.find((cost) => cost.kind === kind) as KindCost;
  printPlan(out, options, byKind("create with password"), byKind("read (get_info)"));
}

/** The plan for the peak: instances and database servers per reads-per-registration, and the database's limit. */
function printPlan(out: (line?: string) => void, options: CapacityOptions, create: KindCost, read: KindCost): void {
  const machine: Machine = { cores: options.cores, utilisation: UTILISATION };
  const plans = options.reads.map((readsPerRegistration) =>
    planPeak(
      { registrations: options.registrations, minutes: options.minutes, readsPerRegistration },
      create,
      read,
      machine,
    ),
  );
  out();
  out(
    `${options.registrations} registrations with passwords in ${options.minutes} minutes ` +
      `(${fixed(plans[0].createsPerSecond, 1)} creates/s), machines of ${options.cores} cores used to ` +
      `${UTILISATION * 100} %, one instance per event loop:`,
  );
  const planRows = plans.map((plan) => [
    String(plan.readsPerRegistration),
    fixed(plan.readsPerSecond, 0),
    fixed(plan.serviceCores, 2),
    String(plan.instances),
    String(plan.serviceMachines),
    plan.databaseCores === null ? "in the service" : fixed(plan.databaseCores, 2),
    plan.databaseCores === null
      ? "–"
      : plan.databaseServers === null
        ? "writer too small"
        : String(plan.databaseServers),
  ]);
  const planHeader = [
    "reads per registration",
    "reads/s",
    "service cores",
    "instances",
    "service machines",
    "database cores",
    "database servers",
  ];
  for (const line of formatTable(planHeader, planRows)) out(line);
  out();
  const limit = databaseLimit(create, read, machine, plans[0].createsPerSecond);
  out(
    limit === null
      ? "The database's share was not measured (SQLite runs inside the service): run with --mariadb <server> to see where it becomes the limit."
      : `The database becomes the limit at ${fixed(limit.createsPerSecond, 0)} creates/s with passwords on one ` +
          `server (every write goes to one writer: a MariaDB primary, or Galera through HAProxy), where the ` +
          `service needs ${fixed((limit.createsPerSecond * create.serviceMs) / 1000, 1)} cores; beside ` +
          `${fixed(plans[0].createsPerSecond, 1)} creates/s it takes ${fixed(limit.readsPerRegistration, 0)} reads ` +
          "per registration, and read replicas (DATABASE_REPLICA_URLS) take the reads beyond that.",
  );
}
