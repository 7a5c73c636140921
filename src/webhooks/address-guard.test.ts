import { describe, expect, it } from "vitest";
import { checkTarget, isPrivateAddress, urlShapeProblem } from "./address-guard.js";

describe("isPrivateAddress", () => {
  it.each([
    "127.0.0.1",
    "127.255.0.9",
    "10.0.0.1",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "239.255.255.250",
    "255.255.255.255",
    "::",
    "::1",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "fe80::1%eth0",
    "ff02::1",
    "fec0::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.0.0.1",
    "::ffff:a9fe:a9fe",
    "::127.0.0.1",
    "64:ff9b::7f00:1",
    "2002:7f00:1::1",
    "2002:c0a8:101::",
  ])("refuses %s", (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "172.32.0.1",
    "192.169.0.1",
    "100.128.0.1",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
  ])("allows %s", (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it("treats what is not an IP address as refused", () => {
    expect(isPrivateAddress("example.com")).toBe(true);
  });
});

describe("urlShapeProblem", () => {
  it("takes absolute http and https URLs only", () => {
    expect(urlShapeProblem("https://example.com/hook")).toBeUndefined();
    expect(urlShapeProblem("http://example.com:8080/hook?x=1")).toBeUndefined();
    expect(urlShapeProblem("ftp://example.com/")).toBe("must be an http or https URL");
    expect(urlShapeProblem("file:///etc/passwd")).toBe("must be an http or https URL");
    expect(urlShapeProblem("/relative")).toBe("must be an absolute URL");
    expect(urlShapeProblem("https://user:pass@example.com/")).toBe("must not carry credentials");
  });
});

describe("checkTarget", () => {
  it("refuses private literals and names that resolve to loopback unless allowed", async () => {
    for (const url of [
      "http://127.0.0.1:9/x",
      "http://[::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://169.254.169.254/latest/meta-data",
      "http://10.1.2.3/",
      "http://localhost:8080/",
      "http://0x7f000001/",
    ]) {
      await expect(checkTarget(url, false), url).rejects.toThrow(/loopback, private, link-local or multicast/);
    }
    await expect(checkTarget("gopher://127.0.0.1/", true)).rejects.toThrow(/http or https/);
  });

  it("gives the checked address to connect to", async () => {
    expect(await checkTarget("http://127.0.0.1:9/x", true)).toMatchObject({ address: "127.0.0.1", family: 4 });
    expect(await checkTarget("https://[::1]:8443/", true)).toMatchObject({ address: "::1", family: 6 });
    expect(await checkTarget("http://93.184.216.34/", false)).toMatchObject({ address: "93.184.216.34", family: 4 });
  });
});
