import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { DataSource } from "typeorm";
import { createApp } from "../src/app";
import { configWith, RATE_LIMITS_OFF } from "../src/config/config";
import { createLogger } from "../src/http/logger";

/** regapi as the in-process benches measure it: silent, no introspection, no rate limits, on a free loopback port. */
export interface BenchApp {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  stop(): Promise<void>;
}

export async function startBenchApp(dataSource: DataSource): Promise<BenchApp> {
  const regapi = await createApp({
    dataSource,
    logger: createLogger("silent"),
    config: configWith({ graphqlIntrospection: false, rateLimit: RATE_LIMITS_OFF }),
  });
  const server = createServer(regapi.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      server.close();
      await regapi.stop();
    },
  };
}
