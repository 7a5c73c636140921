import { describe, expect, it } from "vitest";
import { clientNetwork } from "./client-network.js";

describe("clientNetwork", () => {
  it("keeps an IPv4 address whole, including one seen as IPv4-mapped IPv6", () => {
    expect(clientNetwork("203.0.113.7")).toBe("203.0.113.7");
    expect(clientNetwork("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(clientNetwork("0000:0000:0000:0000:0000:ffff:cb00:7107")).toBe("203.0.113.7");
  });

  it("reduces an IPv6 address to its /64, however it is written", () => {
    const network = "2001:db8:1:2::/64";
    expect(clientNetwork("2001:db8:1:2::1")).toBe(network);
    expect(clientNetwork("2001:0db8:0001:0002:aaaa:bbbb:cccc:dddd")).toBe(network);
    expect(clientNetwork("2001:db8:1:2:ffff::%eth0")).toBe(network);
    expect(clientNetwork("[2001:db8:1:2::9]")).toBe(network);
    expect(clientNetwork("2001:db8:1:3::1")).not.toBe(network);
    expect(clientNetwork("::1")).toBe("0:0:0:0::/64");
  });
});
