// Decoding a 512-span OTLP export into what the mapping reads (src/otlp/spans.ts): the hand-written reader of
// src/otlp against protobufjs, @bufbuild/protobuf and pbf (each one's decode alone, and its decode plus the
// conversion the mapping would need: hex ids, attribute maps, nanosecond numbers), alternating the decoders
// so machine noise hits all alike.
import { decodeProtobufRequest } from "../src/otlp/decode-protobuf.js";
import {
  bufbuildDecode,
  bufbuildToSpans,
  pbfDecode,
  pbfToSpans,
  protobufjsDecode,
  protobufjsToSpans,
} from "./otlp-peer-decoders.js";
import { encodeExport, genAiExport } from "./otlp-proto.js";

const bytes = encodeExport(genAiExport(128));
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const ITERATIONS = Number(process.env.ITERATIONS ?? 300);

type Decoder = [name: string, decode: (b: Buffer) => unknown];

const decoders: Decoder[] = [
  ["hand-written reader (src/otlp/decode-protobuf.ts)", (b) => decodeProtobufRequest(b)],
  ["protobufjs 7 decode", protobufjsDecode],
  ["protobufjs 7 decode + conversion to the same form", protobufjsToSpans],
  ["@bufbuild/protobuf 2 decode", bufbuildDecode],
  ["@bufbuild/protobuf 2 decode + conversion", bufbuildToSpans],
  ["pbf 5 decode", pbfDecode],
  ["pbf 5 decode + conversion", pbfToSpans],
];

/** CPU time per decode, µs (this process's, GC threads included): a loaded machine's waits do not count. */
function time([, decode]: Decoder): number {
  const start = process.cpuUsage();
  for (let i = 0; i < ITERATIONS; i++) decode(bytes);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / ITERATIONS;
}

for (const decoder of decoders) time(decoder); // warm-up
const samples = new Map<string, number[]>(decoders.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const decoder of round % 2 === 0 ? decoders : [...decoders].reverse())
    samples.get(decoder[0])!.push(time(decoder));
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
process.stdout.write(
  `512-span export, ${bytes.length} bytes; median of ${ROUNDS} rounds of ${ITERATIONS} decodes, CPU time\n`,
);
for (const [name, xs] of samples)
  process.stdout.write(
    `${name.padEnd(52)} ${median(xs).toFixed(0).padStart(6)} us/export  ${((median(xs) * 1000) / 512).toFixed(0).padStart(5)} ns/span\n`,
  );
