// Types for the two untyped modules bench/otlp-peer-decoders.ts compiles pbf's readers with.
declare module "pbf/compile" {
  /** Read and write functions (`readX(pbf)`, `writeX(obj, pbf)`) for every message of a parsed schema. */
  export function compile(proto: object): Record<string, unknown>;
}

declare module "protocol-buffers-schema" {
  /** Parses .proto text into the schema object pbf's compile takes. */
  export function parse(text: string): object;
  const schema: { parse: typeof parse };
  export default schema;
}
