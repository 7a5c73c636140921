// The insight thread (insight-thread.ts): its own Redis connection and archive pool, answering each read it
// is sent with the JSON bytes, or the error as plain data.
import { parentPort, workerData } from "node:worker_threads";
import { errorData } from "../api/error-data.js";
import { answerInsights } from "../api/insight-answer.js";
import { openArchive } from "../archive-db/archive-db.js";
import { ArchivedRollupsPg } from "../archive-read/archived-rollups.js";
import { openClient } from "../redis/connect.js";
import { Keys } from "../redis/keys.js";
import { InsightStore } from "../stores/insight-store.js";
import { createLogger } from "../telemetry/logger.js";
import type { InsightThreadReply, InsightThreadRequest, InsightThreadTarget } from "./insight-thread.js";

const port = parentPort;
if (!port) throw new Error("insight-thread-main.js runs as a worker thread");
const target = workerData as InsightThreadTarget;
const logger = createLogger(target.logLevel, { thread: "insights" });
const redis = await openClient(target.endpoint, { connectionName: "verdict-insights" }, logger);
const archive = target.archive && new ArchivedRollupsPg(openArchive(target.archive.location, target.archive.stallMs));
const store = new InsightStore(redis, new Keys(target.keyPrefix), target.shards, archive);

port.on("message", ({ id, read }: InsightThreadRequest) => {
  answerInsights(store, read).then(
    (json) => {
      // A copy of its own, so the bytes move to the main thread rather than being copied again.
      const own = new Uint8Array(json);
      port.postMessage({ id, json: own } satisfies InsightThreadReply, [own.buffer]);
    },
    (error: unknown) => port.postMessage({ id, error: errorData(error) } satisfies InsightThreadReply),
  );
});
