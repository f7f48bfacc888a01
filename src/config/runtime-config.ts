import { loadConfig, type Config } from "./config";

let cached: Config | undefined;

/** The process configuration, read and validated on first use, then reused. */
export function getConfig(): Config {
  cached ??= loadConfig(process.env);
  return cached;
}
