import type { Logger } from "../http/logger";

/**
 * Waits for `work` at most `ms`. A part that never finishes (a pass waiting on a query the
 * database never answers) must not keep the rest of the runtime from stopping: past the bound,
 * what was left behind is logged and the caller goes on. A failure of `work` within the bound is
 * the caller's; a later one is logged.
 */
export async function waitAtMost(work: Promise<void>, ms: number, what: string, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ms);
    timer.unref();
  });
  const finished = work.then(() => "finished" as const);
  try {
    if ((await Promise.race([finished, late])) === "finished") return;
  } finally {
    clearTimeout(timer);
  }
  logger.error({ part: what, waitedMs: ms }, "runtime stop: a part did not finish; stopping the rest without it");
  finished.catch((error: unknown) =>
    logger.warn({ part: what, err: error }, "runtime stop: a part left behind failed"),
  );
}
