// The OTLP mapping page: how this account's OpenTelemetry spans become events, field by field, each list
// marked as the default or as set for the account (changed through PUT /v1/otlp/mapping, docs/otlp.md).
import { DEFAULT_OTLP_MAPPING, OUTCOME_KEY_ATTRIBUTE, type OtlpMapping } from "../../otlp/mapping-config.js";
import type { PageContext, DashboardRoute } from "../context.js";
import { html, type Html } from "../html.js";
import { layout } from "../layout.js";
import { page } from "../web.js";

export const OTLP_MAPPING_PATH = "/otlp";

/** The account's effective mapping, as GET /v1/otlp/mapping answers it: the page's one API call. */
function readMapping(ctx: PageContext): Promise<OtlpMapping> {
  return ctx.client.otlp.mapping.get();
}

const FIELDS: readonly { field: keyof OtlpMapping; label: string; what: string }[] = [
  {
    field: "outcome_key_attributes",
    label: "Outcome key",
    what: `Names the outcome a span belongs to; ${OUTCOME_KEY_ATTRIBUTE} always comes first.`,
  },
  {
    field: "task_key_attributes",
    label: "Task key",
    what: "Variant A: opens the outcome from this task on the trace's first span.",
  },
  {
    field: "agent_key_attributes",
    label: "Agent key",
    what: "Variant B: the agent bound when the outcome is created.",
  },
  { field: "customer_key_attributes", label: "Customer key", what: "Variant B: the customer the outcome belongs to." },
  {
    field: "include_attributes",
    label: "Extra properties",
    what: "Span attributes copied into each event's properties (dots become _). Nothing else a span says is stored.",
  },
];

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((name, i) => name === b[i]);

function attributeList(names: readonly string[], explicitFirst: boolean): Html {
  const shown = explicitFirst ? [OUTCOME_KEY_ATTRIBUTE, ...names] : names;
  if (shown.length === 0) return html`<span class="muted">none</span>`;
  return html`<ol class="attribute-list">${shown.map((name) => html`<li><code>${name}</code></li>`)}</ol>`;
}

function mappingTable(mapping: OtlpMapping): Html {
  const rows = FIELDS.map(({ field, label, what }) => {
    const isDefault = sameList(mapping[field], DEFAULT_OTLP_MAPPING[field]);
    return html`<tr data-field="${field}">
  <th scope="row">${label}<br><code class="muted">${field}</code></th>
  <td>${attributeList(mapping[field], field === "outcome_key_attributes")}</td>
  <td><span class="badge${isDefault ? "" : " set"}">${isDefault ? "default" : "set for this account"}</span></td>
  <td>${what}</td>
</tr>`;
  });
  return html`<table>
  <thead><tr><th scope="col">Field</th><th scope="col">Attributes, first found wins</th><th scope="col">Source</th><th scope="col">What it does</th></tr></thead>
  <tbody>${rows}</tbody>
</table>`;
}

export const otlpMappingRoutes: DashboardRoute[] = [
  {
    method: "GET",
    path: OTLP_MAPPING_PATH,
    async handle(ctx) {
      const mapping = await readMapping(ctx);
      return page(
        200,
        layout(
          ctx.viewer,
          OTLP_MAPPING_PATH,
          "OTLP mapping",
          html`<p>Spans sent to <code>POST /v1/traces</code> become events as below. Each attribute is looked up on the span, then on its resource; a span without an outcome key takes its trace's.</p>
${mappingTable(mapping)}
<p>Change a field with <code>PUT /v1/otlp/mapping</code> and the API token; a field left out keeps its default. Actions, properties and timestamps are fixed: see the OTLP guide (<code>docs/otlp.md</code>).</p>`,
        ),
      );
    },
  },
];
