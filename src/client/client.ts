// VerdictClient: the one object a fleet holds; `track` for delivery with batching, ordered retries and
// exactly-once keys, typed calls for every route, and `stats` for the caller's own metrics.
import { EventSender } from "./event-sender.js";
import { resolveOptions, type VerdictClientOptions } from "./options.js";
import { routes, type Routes } from "./routes.js";
import type { ClientStats } from "./stats.js";
import { loadTraceApi } from "./trace-context.js";
import { HttpTransport } from "./transport.js";
import type { VerdictEvent } from "./wire-types.js";

export class VerdictClient {
  private readonly sender: EventSender;
  readonly tasks: Routes["tasks"];
  readonly outcomes: Routes["outcomes"];
  readonly events: Routes["events"];
  readonly agents: Routes["agents"];
  readonly customers: Routes["customers"];
  readonly rateCards: Routes["rateCards"];
  readonly charges: Routes["charges"];
  readonly usage: Routes["usage"];
  readonly insights: Routes["insights"];
  readonly dlq: Routes["dlq"];
  readonly webhooks: Routes["webhooks"];
  readonly otlp: Routes["otlp"];

  constructor(options: VerdictClientOptions) {
    const resolved = resolveOptions(options);
    const transport = new HttpTransport(resolved);
    this.sender = new EventSender(resolved, transport);
    ({
      tasks: this.tasks,
      outcomes: this.outcomes,
      events: this.events,
      agents: this.agents,
      customers: this.customers,
      rateCards: this.rateCards,
      charges: this.charges,
      usage: this.usage,
      insights: this.insights,
      dlq: this.dlq,
      webhooks: this.webhooks,
      otlp: this.otlp,
    } = routes(transport));
    void loadTraceApi();
  }

  /**
   * Buffers one event; resolves when the service accepted it, rejects with a VerdictError when it refused it
   * or the retries ran out. Events of one outcome are applied in the order of `track` calls. When the buffer
   * is full this waits for room first.
   */
  track(event: VerdictEvent): Promise<void> {
    return this.sender.track(event);
  }

  /** Sends what is buffered now and resolves once every event tracked before the call has settled. */
  flush(): Promise<void> {
    return this.sender.flush();
  }

  /** Refuses new events (`CLIENT_CLOSED`), then flushes. */
  close(): Promise<void> {
    return this.sender.close();
  }

  stats(): ClientStats {
    return this.sender.stats();
  }
}
