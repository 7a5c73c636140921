// GET and PUT /v1/otlp/mapping: the account's override of how OTLP spans become events (docs/otlp.md).
import type { Route } from "../../ingress/router.js";
import { validateMappingInput, withDefaults } from "../../otlp/mapping-config.js";
import type { MappingStore } from "../../otlp/mapping-store.js";
import { validBody } from "../request-checks.js";

export function otlpMappingRoutes(mappings: MappingStore): Route[] {
  return [
    {
      method: "GET",
      path: "/v1/otlp/mapping",
      async handler(req) {
        return { status: 200, body: await mappings.get(req.accountId) };
      },
    },
    {
      method: "PUT",
      path: "/v1/otlp/mapping",
      async handler(req) {
        const partial = validBody(validateMappingInput(req.body));
        const created = await mappings.put(req.accountId, partial);
        return { status: created ? 201 : 200, body: withDefaults(partial) };
      },
    },
  ];
}
