import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { chromiumPath, headlessArgs } from './chromium';

interface DomNode {
  nodeType: number;
  nodeName: string;
  nodeValue?: string;
  children?: DomNode[];
  contentDocument?: DomNode;
  shadowRoots?: DomNode[];
}

/** Elements whose text no one sees. */
const UNSEEN = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);

/**
 * Run in the page: its text nodes inside rendered elements (checkVisibility: not display:none, not
 * visibility:hidden, not transparent), in document order, each iframe as a numbered mark (hidden ones
 * numbered too, so the numbers follow the protocol's document order).
 */
const VISIBLE_TEXT = `(() => {
  const parts = [];
  let frame = 0;
  const walk = (node, shown) => {
    if (node.nodeType === 3) { if (shown) parts.push(node.nodeValue); return; }
    if (node.nodeType !== 1 || ${JSON.stringify([...UNSEEN])}.includes(node.tagName)) return;
    shown = shown && node.checkVisibility({ visibilityProperty: true, opacityProperty: true });
    if (node.tagName === 'IFRAME') { const n = frame++; if (shown) parts.push('\\uE000frame' + n + '\\uE000'); return; }
    for (const child of [...(node.shadowRoot ? node.shadowRoot.childNodes : []), ...node.childNodes]) walk(child, shown);
  };
  walk(document.documentElement, true);
  return parts.join(' ');
})()`;

/**
 * One tab of headless chromium driven over the DevTools protocol (on a pipe: no port), for a web app
 * that draws itself with scripts and keeps fetching, such as the Temporal Web UI: there `--dump-dom`
 * returns the empty shell, and `--virtual-time-budget` never ends (virtual time waits for the UI's
 * long polls). Host names do not resolve (nothing leaves the machine); 127.0.0.1 is reached.
 */
export class BrowserPage {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: unknown) => void; reject: (e: Error) => void }>();
  private sessionId?: string;
  stderr = '';

  private constructor(
    private readonly chrome: ChildProcess,
    private readonly profile: string,
  ) {
    const input = chrome.stdio[4] as Readable;
    let buffered = Buffer.alloc(0);
    input.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (let end = buffered.indexOf(0); end >= 0; end = buffered.indexOf(0)) {
        this.answer(JSON.parse(buffered.subarray(0, end).toString()) as Answer);
        buffered = buffered.subarray(end + 1);
      }
    });
    chrome.stderr!.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-20_000)));
    chrome.once('exit', (code) => {
      for (const p of this.pending.values()) p.reject(new Error(`chromium exited (${code}):\n${this.stderr}`));
      this.pending.clear();
    });
  }

  /** A fresh browser (its own profile) with one tab of exactly `size` CSS pixels. */
  static async open(size = { width: 1400, height: 1000 }): Promise<BrowserPage> {
    const profile = mkdtempSync(path.join(tmpdir(), 'ferry-chromium-'));
    const chrome = spawn(
      chromiumPath(),
      // Even an address literal goes through the resolver rules: loopback is let through, by name.
      [...headlessArgs(profile, size, ['127.0.0.1']), '--remote-debugging-pipe', 'about:blank'],
      // The protocol runs on fds 3 (to chromium) and 4 (from it).
      { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
    );
    const page = new BrowserPage(chrome, profile);
    const { targetId } = (await page.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
    const attached = (await page.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
    page.sessionId = attached.sessionId;
    await page.send('Emulation.setDeviceMetricsOverride', { ...size, deviceScaleFactor: 1, mobile: false });
    await page.send('Page.enable');
    return page;
  }

  async goto(url: string): Promise<void> {
    const navigated = (await this.send('Page.navigate', { url })) as { errorText?: string };
    if (navigated.errorText) throw new Error(`chromium could not open ${url}: ${navigated.errorText}`);
  }

  /**
   * The text a person sees, spaces collapsed: the page's visible text nodes in document order, each
   * visible iframe replaced by its document's text (the UI draws Markdown in sandboxed iframes, which
   * the page's scripts cannot read but the protocol can).
   */
  async text(): Promise<string> {
    const visible = (await this.send('Runtime.evaluate', { expression: VISIBLE_TEXT, returnByValue: true })) as {
      result: { value?: unknown };
      exceptionDetails?: { exception?: { description?: string }; text: string };
    };
    if (typeof visible.result.value !== 'string')
      throw new Error(
        `the page's text could not be read: ${visible.exceptionDetails?.exception?.description ?? visible.exceptionDetails?.text}`,
      );
    const frames = await this.frameTexts();
    return visible.result.value
      .replace(/\uE000frame(\d+)\uE000/g, (_, i: string) => frames[Number(i)] ?? '')
      .replace(/\s+/g, ' ');
  }

  /** The text of each iframe's document, in the order VISIBLE_TEXT numbers them. */
  private async frameTexts(): Promise<string[]> {
    const { root } = (await this.send('DOM.getDocument', { depth: -1, pierce: true })) as { root: DomNode };
    const frames: string[] = [];
    const textOf = (node: DomNode, parts: string[]): void => {
      if (UNSEEN.has(node.nodeName)) return;
      if (node.nodeType === 3 && node.nodeValue) parts.push(node.nodeValue);
      for (const child of [...(node.shadowRoots ?? []), ...(node.children ?? [])]) textOf(child, parts);
    };
    const findFrames = (node: DomNode): void => {
      if (node.nodeName === 'IFRAME') {
        const parts: string[] = [];
        if (node.contentDocument) textOf(node.contentDocument, parts);
        frames.push(parts.join(' '));
        return;
      }
      for (const child of [...(node.shadowRoots ?? []), ...(node.children ?? [])]) findFrames(child);
    };
    findFrames(root);
    return frames;
  }

  /**
   * Reads the page's text every half second until `test` holds; returns it, or fails with what it showed.
   * A read that fails (the page is between two documents) counts as not yet.
   */
  async waitForText(what: string, test: (text: string) => boolean, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = await this.text().catch((err: Error) => err.message);
      if (test(text)) return text;
      if (Date.now() > deadline) throw new Error(`the page never showed ${what}; it shows:\n${text}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  /** Clicks the link whose text is `label`, as a person would. */
  async clickLink(label: string): Promise<void> {
    const expression = `(() => {
      const link = [...document.querySelectorAll('a')].find((a) => a.innerText.trim() === ${JSON.stringify(label)});
      if (!link) return false;
      link.click();
      return true;
    })()`;
    const clicked = (await this.send('Runtime.evaluate', { expression, returnByValue: true })) as {
      result: { value: boolean };
    };
    if (!clicked.result.value) throw new Error(`no link "${label}" on the page:\n${await this.text()}`);
  }

  /** A PNG of the tab's viewport, written to `pngFile`. */
  async screenshot(pngFile: string): Promise<Buffer> {
    const { data } = (await this.send('Page.captureScreenshot', { format: 'png' })) as { data: string };
    const png = Buffer.from(data, 'base64');
    writeFileSync(pngFile, png);
    return png;
  }

  async close(): Promise<void> {
    const exited = new Promise((r) => (this.chrome.exitCode !== null ? r(undefined) : this.chrome.once('exit', r)));
    await this.send('Browser.close', {}, false).catch(() => undefined);
    const timer = setTimeout(() => this.chrome.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    rmSync(this.profile, { recursive: true, force: true });
  }

  /** One protocol command, to the tab (or with `toTab` false, to the browser); resolves with its result. */
  private send(method: string, params: Record<string, unknown> = {}, toTab = true): Promise<unknown> {
    const id = this.nextId++;
    const sessionId = toTab ? this.sessionId : undefined;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      (this.chrome.stdio[3] as Writable).write(`${JSON.stringify({ id, method, params, sessionId })}\0`);
    });
  }

  private answer(message: Answer): void {
    const waiting = message.id !== undefined ? this.pending.get(message.id) : undefined;
    if (!waiting) return; // an event: nothing here listens to them
    this.pending.delete(message.id!);
    if (message.error) waiting.reject(new Error(`chromium: ${message.error.message}`));
    else waiting.resolve(message.result);
  }
}

interface Answer {
  id?: number;
  result?: unknown;
  error?: { message: string };
}
