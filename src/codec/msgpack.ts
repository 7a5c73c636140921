// The msgpack codec of everything Verdict stores in Redis (events, snapshots, dead letters, script
// arguments): standard msgpack only (arrays, maps, bin), no msgpackr record extension, so any msgpack
// reader (redis-cli tooling, cmsgpack inside Lua for script arguments) can read what is written.
import { Packr } from "msgpackr";

export const msgpack = new Packr({ useRecords: false, moreTypes: false });
