import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { DataSource } from "typeorm";
import { createApp } from "../src/app";
import { MemoryWalkPositions } from "../src/domain/users/walk-positions";
import { configWith, RATE_LIMITS_OFF } from "../src/config/config";
import { createLogger } from "../src/http/logger";
import { startRuntime } from "../src/runtime/runtime";

/** regapi as the in-process benches measure it: silent, no introspection, no rate limits, on a free loopback port. */
export interface BenchApp {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Forgets the get_user_list positions handed out so far (a first page measured again is a first page). */
  forgetWalkPositions(): void;
  stop(): Promise<void>;
}

export async function startBenchApp(dataSource: DataSource): Promise<BenchApp> {
  const logger = createLogger("silent");
  const config = configWith({ graphqlIntrospection: false, rateLimit: RATE_LIMITS_OFF });
  const runtime = await startRuntime({ dataSource, config, logger, deliveryWorker: false });
  const regapi = await createApp({ dataSource, logger, config, runtime });
  const server = createServer(regapi.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    forgetWalkPositions() {
      if (runtime.state.walkPositions instanceof MemoryWalkPositions) runtime.state.walkPositions.clear();
    },
    async stop() {
      server.close();
      await regapi.stop();
      await runtime.stop();
    },
  };
}
