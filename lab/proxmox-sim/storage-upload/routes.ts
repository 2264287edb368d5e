import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fail, paramError } from '../api-error';
import type { Cluster } from '../cluster';
import { imageInfo } from '../qemu-img';
import type { StorageSpec } from '../storage';
import type { TaskContext } from '../tasks';
import { startTask, type RouteTable, type SimRequest } from '../routes/types';
import { tarMembers } from './ovf';

/**
 * Content into a storage (pve-storage's API2/Storage/Status.pm upload and download_url): an ISO, a
 * container template or an importable image (qcow2, raw, vmdk, ova) goes to the storage's folder for it
 * on the node. `upload` takes the file pveproxy received (multipart.ts) in an `imgcopy` task: checksum
 * verified when given, the image checked as an untrusted one (no backing file; an OVA must hold an
 * OVF), then copied; `download-url` fetches with wget in a `download` task, as PVE::Tools'
 * download_file_from_url does (checksum, optional decompression of an ISO, a refused overwrite).
 */
const SUBDIR: Record<string, string> = { iso: 'template/iso', vztmpl: 'template/cache', import: 'import' };

/** normalize_content_filename: the base name, anything but [a-zA-Z0-9_.-] turned into `_`. */
const normalize = (name: string) =>
  name
    .replace(/\n$/, '')
    .replace(/^.*[/\\]/, '')
    .replace(/[^a-zA-Z0-9_.-]/g, '_');

interface Target {
  spec: StorageSpec;
  file: string;
  filename: string;
  /** An importable image's format, or `ova`. */
  imageFormat?: string;
}

/** The checks upload and download-url share: a file storage that takes the content, a name of its kind. */
function target(cluster: Cluster, params: Record<string, string>, uploading: boolean): Target {
  cluster.requireNode(params.node!);
  const spec = cluster.storages.require(params.storage!);
  if (spec.type === 'lvmthin')
    throw fail(`can't upload to storage type '${spec.type}'${uploading ? '' : ', not a file based storage!'}`);
  const content = params.content!;
  if (!uploading && !spec.content.includes(content))
    throw fail(`storage '${spec.id}' is not configured for content-type '${content}'`);
  const filename = normalize(params.filename!);
  let imageFormat: string | undefined;
  if (content === 'iso' && !/^[^/]+\.(?:iso|img)$/i.test(filename))
    throw paramError({ filename: 'wrong file extension' });
  if (content === 'vztmpl' && !/^[^/]+\.(?:tar(?!\.)|tar\.(?:gz|xz|zst|bz2))$/i.test(filename))
    throw paramError({ filename: 'wrong file extension' });
  if (content === 'import') {
    const m = /^[a-zA-Z0-9\-.+=_]+\.(ova|qcow2|raw|vmdk)$/.exec(filename);
    if (!m) throw paramError({ filename: 'invalid filename or wrong extension' });
    imageFormat = m[1];
  }
  if (uploading && !spec.content.includes(content))
    throw fail(`storage '${spec.id}' does not support '${content}' content`);
  const dir = path.join(cluster.storages.folder(spec, params.node!), SUBDIR[content]!);
  return { spec, file: path.join(dir, filename), filename, imageFormat };
}

function checksumOf(file: string, algorithm: string): Promise<string> {
  const hash = createHash(algorithm);
  return pipeline(createReadStream(file), hash).then(() => hash.digest('hex'));
}

/** The content checks of an untrusted file (assert_iso_content, file_size_info untrusted, assert_ova_contents). */
async function assertValid(file: string, content: string, imageFormat: string | undefined): Promise<void> {
  if (imageFormat === 'ova') {
    if (!tarMembers(file).some((m) => m.name.endsWith('.ovf'))) throw new Error('ova archive has no .ovf file inside');
    return;
  }
  if (content !== 'iso' && !imageFormat) return;
  const info = await imageInfo(file, imageFormat).catch(() => {
    throw new Error('failed to query file information with qemu-img');
  });
  if (info.backingFile) throw new Error(`backing file not allowed for untrusted image '${file}'!`);
}

async function verifyChecksum(task: TaskContext, file: string, params: Record<string, string>): Promise<void> {
  const algorithm = params['checksum-algorithm'];
  if (!algorithm) return;
  const got = await checksumOf(file, algorithm);
  if (got.toLowerCase() !== params.checksum!.toLowerCase()) {
    task.log('calculating checksum...');
    throw new Error(`checksum mismatch: got '${got}' != expect '${params.checksum}'`);
  }
  task.log('calculating checksum...OK, checksum verified');
}

function upload(req: SimRequest): string {
  const { cluster, params, upload: received } = req;
  if (!received) throw fail('missing temporary file name');
  const t = target(cluster, params, true);
  const local = params.node === cluster.nodes[0];
  const command = local
    ? `cp -- ${received.tmpfile} ${t.file}`
    : `/usr/bin/scp -o BatchMode=yes -p -- ${received.tmpfile} [${cluster.hardware(params.node!).ip}]:${t.file}`;
  return startTask(req, { node: cluster.nodes[0]!, type: 'imgcopy', id: '' }, async (task) => {
    try {
      task.log(`starting file import from: ${received.tmpfile}`);
      await verifyChecksum(task, received.tmpfile, params);
      await assertValid(received.tmpfile, params.content!, t.imageFormat);
      task.log(`target node: ${params.node}`);
      task.log(`target file: ${t.file}`);
      task.log(`file size is: ${received.size}`);
      task.log(`command: ${command}`);
      mkdirSync(path.dirname(t.file), { recursive: true });
      copyFileSync(received.tmpfile, t.file);
      task.log('finished file import successfully');
    } finally {
      rmSync(received.tmpfile, { force: true });
    }
  }).upid;
}

/** Runs a command, its output lines into the task log; fails as run_command does. */
function run(task: TaskContext, argv: string[], errmsg: string, stdoutTo?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      signal: task.signal,
      stdio: ['ignore', stdoutTo ? 'pipe' : 'pipe', 'pipe'],
    });
    // The output file is whole only once its stream has flushed, which may be after the child closed.
    const written = stdoutTo ? pipeline(child.stdout!, createWriteStream(stdoutTo)) : Promise.resolve();
    written.catch(() => undefined); // a failed child's error is the one reported
    let rest = '';
    const onData = (chunk: Buffer) => {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop()!;
      for (const line of lines) if (line.trim()) task.log(line);
    };
    if (!stdoutTo) child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('error', (err) => reject(new Error(`${errmsg}: ${err.message}`)));
    child.on('close', (code) => {
      if (rest.trim()) task.log(rest);
      if (code === 0) written.then(resolve, (err: Error) => reject(new Error(`${errmsg}: ${err.message}`)));
      else reject(new Error(`${errmsg}: command '${argv.join(' ')}' failed: exit code ${code}`));
    });
  });
}

const DECOMPRESSORS: Record<string, string[]> = {
  gz: ['gzip', '--decompress', '--stdout'],
  lzo: ['lzop', '--decompress', '--stdout'],
  zst: ['zstd', '--decompress', '--stdout'],
  bz2: ['bzip2', '--decompress', '--stdout'],
};

function downloadUrl(req: SimRequest): string {
  const { cluster, params } = req;
  const t = target(cluster, params, false);
  const id = t.filename.replace(/[^A-Za-z0-9\-_.]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return startTask(req, { node: params.node!, type: 'download', id }, async (task) => {
    const compression = params.compression;
    if (compression && params.content !== 'iso') throw new Error(`decompression not supported for ${params.content}`);
    task.log(`downloading ${params.url} to ${t.file}`);
    if (existsSync(t.file)) {
      if (!params['checksum-algorithm']) throw new Error(`refusing to override existing file '${t.file}'`);
      task.log('calculating checksum of existing file...');
      if ((await checksumOf(t.file, params['checksum-algorithm'])).toLowerCase() === params.checksum!.toLowerCase())
        return task.log('OK, got correct file already, no need to download');
      throw new Error(
        `checksum mismatch: got '${await checksumOf(t.file, params['checksum-algorithm'])}' != expect '${params.checksum}', aborting`,
      );
    }
    mkdirSync(path.dirname(t.file), { recursive: true });
    let tmp = `${t.file}.tmp_dwnl.${process.pid}`;
    try {
      const wget = ['wget', '--progress=dot:giga', '-O', tmp, params.url!];
      if (params['verify-certificates'] === '0') wget.push('--no-check-certificate');
      await run(task, wget, 'download failed');
      await verifyChecksum(task, tmp, params);
      if (compression) {
        const decompressed = `${t.file}.tmp_dcom.${process.pid}`;
        task.log(`decompressing ${tmp} to ${decompressed}`);
        await run(task, [...DECOMPRESSORS[compression]!, tmp], 'decompression failed', decompressed);
        rmSync(tmp, { force: true });
        tmp = decompressed;
      }
      await assertValid(tmp, params.content!, t.imageFormat).catch((err: Error) => {
        throw new Error(`failed to verify file: ${err.message}`);
      });
      renameSync(tmp, t.file);
    } finally {
      rmSync(tmp, { force: true });
    }
    task.log(`download of '${params.url}' to '${t.file}' finished`);
  }).upid;
}

export const storageUploadRoutes: RouteTable = {
  'POST /nodes/{node}/storage/{storage}/upload': upload,
  'POST /nodes/{node}/storage/{storage}/download-url': downloadUrl,
};
