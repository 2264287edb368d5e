import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { makeOva, serveFiles, upload } from '../../helpers/pve-fixtures';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';
import { simApi, type SimApi } from '../../helpers/sim-api';

/**
 * Content in and out of a storage as pve-storage and pveproxy handle it: a multipart upload (its parts
 * in pveproxy's order, the checksum verified, the file checked as an untrusted image), download-url
 * (wget, checksum, decompression, no overwrite), the volume IDs and sizes the content list and a
 * volume's info report for ISOs, container templates, importable images and VM images, deleting them,
 * and an OVA's import metadata.
 */
const NODE = 'pve1';
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe.each(FLAVOURS)('storage content, PVE %s', (flavour) => {
  let fx: SimFixture;
  let sim: SimApi;
  const content = (storage: string, type?: string) =>
    sim.ok('GET', `/nodes/${NODE}/storage/${storage}/content${type ? `?content=${type}` : ''}`);
  const info = (volid: string) =>
    sim.ok('GET', `/nodes/${NODE}/storage/${volid.split(':')[0]}/content/${encodeURIComponent(volid)}`);
  const uploadTmp = () => readdirSync(path.join(fx.stateDir, 'proxmox', 'var-tmp'));

  beforeAll(async () => {
    fx = await startSim(flavour);
    sim = simApi(fx);
  });
  afterAll(() => fx.stop());

  it('upload: an ISO with its checksum verified, in an imgcopy task; listed and described with its size', async () => {
    const iso = Buffer.alloc(300 * 1024, 0x5a);
    const res = await upload(fx, NODE, 'local', {
      content: 'iso',
      filename: 'tools.iso',
      data: iso,
      checksum: ['sha256', sha256(iso)],
    });
    expect(res.status).toBe(200);
    const upid = res.body.data as string;
    expect(upid).toMatch(/^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:imgcopy::ferry@pve!ferry:$/);
    expect(await sim.finish(upid)).toBe('OK');
    const log = sim.log(upid);
    expect(log[0]).toMatch(/^starting file import from: .*\/pveupload-[0-9a-f]{32}$/);
    expect(log.slice(1, 4)).toEqual([
      'calculating checksum...OK, checksum verified',
      `target node: ${NODE}`,
      expect.stringMatching(/^target file: .*\/template\/iso\/tools\.iso$/),
    ]);
    expect(log).toContain(`file size is: ${iso.length}`);
    expect(log).toContain('finished file import successfully');
    expect(uploadTmp()).toEqual([]); // the temporary file is gone
    expect((await content('local', 'iso')).find((i: { volid: string }) => i.volid === 'local:iso/tools.iso')).toEqual({
      volid: 'local:iso/tools.iso',
      format: 'iso',
      size: iso.length,
      ctime: expect.any(Number),
      content: 'iso',
    });
    expect(await info('local:iso/tools.iso')).toEqual({
      path: expect.stringMatching(/\/template\/iso\/tools\.iso$/),
      size: iso.length,
      used: expect.any(Number),
      format: 'raw', // file_size_info reads an ISO as raw
    });
  });

  it('upload refusals: a wrong checksum fails the task; a wrong extension, a storage without a path, no permission, parts out of order', async () => {
    const data = Buffer.alloc(64 * 1024, 1);
    const bad = await upload(fx, NODE, 'local', {
      content: 'iso',
      filename: 'bad.iso',
      data,
      checksum: ['md5', '0'.repeat(32)],
    });
    expect(await sim.finish(bad.body.data as string)).toBe(
      `checksum mismatch: got '${createHash('md5').update(data).digest('hex')}' != expect '${'0'.repeat(32)}'`,
    );
    expect(existsSync(path.join(fx.stateDir, 'proxmox/storage/local', NODE, 'template/iso/bad.iso'))).toBe(false);
    expect(uploadTmp()).toEqual([]);
    const ext = await upload(fx, NODE, 'local', { content: 'iso', filename: 'tools.qcow2', data });
    expect([ext.status, (ext.body as { errors?: unknown }).errors]).toEqual([
      400,
      { filename: 'wrong file extension' },
    ]);
    const lvm = await upload(fx, NODE, 'local-lvm', { content: 'iso', filename: 'x.iso', data });
    expect([lvm.status, lvm.body.message]).toEqual([500, "can't upload to storage type 'lvmthin'\n"]);
    const audit = await upload(
      fx,
      NODE,
      'local',
      { content: 'iso', filename: 'x.iso', data },
      {
        authorization: `PVEAPIToken=${fx.credentials.auditTokenId}=${fx.credentials.auditTokenSecret}`,
      },
    );
    expect([audit.status, audit.body.message]).toEqual([
      403,
      'Permission check failed (/storage/local, Datastore.AllocateTemplate)\n',
    ]);

    // pveproxy reads `content` first: a body that starts with another field is refused.
    const boundary = 'ferryboundary';
    const part = (name: string, value: string, file?: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? `; filename="${file}"` : ''}\r\n\r\n${value}\r\n`;
    const body =
      part('checksum-algorithm', 'md5') +
      part('content', 'iso') +
      part('filename', 'data', 'x.iso') +
      `--${boundary}--\r\n`;
    const dispatcher = new Agent({ connect: { ca: readFileSync(fx.sim.caFile, 'utf8') } });
    try {
      const res = await request(`${fx.sim.url}/api2/json/nodes/${NODE}/storage/local/upload`, {
        method: 'POST',
        body,
        headers: {
          authorization: `PVEAPIToken=${fx.credentials.tokenId}=${fx.credentials.tokenSecret}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
        dispatcher,
      });
      expect(res.statusCode).toBe(500);
      expect(JSON.parse(await res.body.text()).message).toMatch(
        /^wrong Content-Disposition 'form-data; name="checksum-algorithm".*' in multipart, expected 'form-data'/s,
      );
    } finally {
      await dispatcher.close();
    }
  });

  it('container templates and importable images: their volume IDs and formats; an image with a backing file is refused', async () => {
    const tmpl = Buffer.alloc(8192, 2);
    const up = await upload(fx, NODE, 'local', {
      content: 'vztmpl',
      filename: 'debian-12-standard_12.7-1_amd64.tar.zst',
      data: tmpl,
    });
    expect(await sim.finish(up.body.data as string)).toBe('OK');
    expect(await content('local', 'vztmpl')).toEqual([
      expect.objectContaining({
        volid: 'local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst',
        format: 'tzst',
        size: 8192,
      }),
    ]);
    const dir = mkdtempSync(path.join(tmpdir(), 'ferry-img-'));
    execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', path.join(dir, 'base.qcow2'), '32M']);
    execFileSync('qemu-img', [
      'create',
      '-q',
      '-f',
      'qcow2',
      '-b',
      path.join(dir, 'base.qcow2'),
      '-F',
      'qcow2',
      path.join(dir, 'overlay.qcow2'),
    ]);
    const good = await upload(fx, NODE, 'local', {
      content: 'import',
      filename: 'base.qcow2',
      data: readFileSync(path.join(dir, 'base.qcow2')),
    });
    expect(await sim.finish(good.body.data as string)).toBe('OK');
    expect(await info('local:import/base.qcow2')).toMatchObject({ format: 'qcow2', size: 32 * 1024 ** 2 });
    const overlay = await upload(fx, NODE, 'local', {
      content: 'import',
      filename: 'overlay.qcow2',
      data: readFileSync(path.join(dir, 'overlay.qcow2')),
    });
    expect(await sim.finish(overlay.body.data as string)).toMatch(
      /^backing file not allowed for untrusted image '.*'!$/,
    );
    const renamed = await upload(fx, NODE, 'local', {
      content: 'import',
      filename: 'raw as qcow2.qcow2',
      data: Buffer.alloc(4096),
    });
    expect(await sim.finish(renamed.body.data as string)).toBe('failed to query file information with qemu-img');
  });

  it('download-url: wget into the storage, checksum checked, a .gz ISO decompressed, an existing file never overwritten', async () => {
    const iso = Buffer.alloc(128 * 1024, 7);
    const web = await serveFiles({ '/a.iso': iso, '/b.iso.gz': gzipSync(iso) });
    try {
      const url = `${web.url}/a.iso`;
      const a = await sim.ok('POST', `/nodes/${NODE}/storage/local/download-url`, {
        url,
        content: 'iso',
        filename: 'a.iso',
        'checksum-algorithm': 'sha256',
        checksum: sha256(iso),
      });
      expect(a).toMatch(/:download:a\.iso:ferry@pve!ferry:$/);
      expect(await sim.finish(a)).toBe('OK');
      const log = sim.log(a);
      expect(log[0]).toMatch(new RegExp(`^downloading ${url} to .*/template/iso/a\\.iso$`));
      expect(log).toContain('calculating checksum...OK, checksum verified');
      expect(log[log.length - 2]).toMatch(new RegExp(`^download of '${url}' to '.*/a\\.iso' finished$`));
      expect(await info('local:iso/a.iso')).toMatchObject({ size: iso.length });
      const again = await sim.ok('POST', `/nodes/${NODE}/storage/local/download-url`, {
        url,
        content: 'iso',
        filename: 'a.iso',
      });
      expect(await sim.finish(again)).toMatch(/^refusing to override existing file '.*\/a\.iso'$/);
      const gz = await sim.ok('POST', `/nodes/${NODE}/storage/local/download-url`, {
        url: `${web.url}/b.iso.gz`,
        content: 'iso',
        filename: 'b.iso',
        compression: 'gz',
      });
      expect(await sim.finish(gz)).toBe('OK');
      expect(await info('local:iso/b.iso')).toMatchObject({ size: iso.length });
      const missing = await sim.ok('POST', `/nodes/${NODE}/storage/local/download-url`, {
        url: `${web.url}/nope.iso`,
        content: 'iso',
        filename: 'nope.iso',
      });
      expect(await sim.finish(missing)).toMatch(
        /^download failed: command 'wget --progress=dot:giga -O .* http:\/\/127\.0\.0\.1:\d+\/nope\.iso' failed: exit code 8$/,
      );
      const vztmpl = await fx.raw('POST', `/api2/json/nodes/${NODE}/storage/local-lvm/download-url`, {
        form: { url, content: 'iso', filename: 'a.iso' },
      });
      expect([vztmpl.status, vztmpl.body.message]).toEqual([
        500,
        "can't upload to storage type 'lvmthin', not a file based storage!\n",
      ]);
    } finally {
      await web.close();
    }
  });

  it("VM images: allocated with PVE's volume IDs and sizes, listed with their owner, deleted in an imgdel task", async () => {
    const dirVolid = await sim.ok('POST', `/nodes/${NODE}/storage/local/content`, {
      vmid: '9100',
      filename: 'vm-9100-disk-3.qcow2',
      size: '64M',
    });
    const thinVolid = await sim.ok('POST', `/nodes/${NODE}/storage/local-lvm/content`, {
      vmid: '9100',
      filename: 'vm-9100-disk-4',
      size: '32M',
    });
    expect([dirVolid, thinVolid]).toEqual(['local:9100/vm-9100-disk-3.qcow2', 'local-lvm:vm-9100-disk-4']);
    expect(await info(dirVolid)).toMatchObject({ format: 'qcow2', size: 64 * 1024 ** 2 });
    expect(await info(thinVolid)).toEqual({
      path: '/dev/pve/vm-9100-disk-4',
      size: 32 * 1024 ** 2,
      used: expect.any(Number),
      format: 'raw',
    });
    expect(await sim.ok('GET', `/nodes/${NODE}/storage/local/content?vmid=9100`)).toEqual([
      {
        volid: dirVolid,
        format: 'qcow2',
        size: 64 * 1024 ** 2,
        vmid: 9100,
        used: expect.any(Number),
        parent: null,
        ctime: expect.any(Number),
        content: 'images',
      },
    ]);
    const wrong = await fx.raw('POST', `/api2/json/nodes/${NODE}/storage/local/content`, {
      form: { vmid: '9100', filename: 'vm-9101-disk-0', size: '1M' },
    });
    expect(wrong.body.message).toBe("illegal name 'vm-9101-disk-0' - should be 'vm-9100-*'\n");
    for (const volid of [dirVolid, thinVolid, 'local:iso/tools.iso']) {
      const upid = await sim.ok(
        'DELETE',
        `/nodes/${NODE}/storage/${volid.split(':')[0]}/content/${encodeURIComponent(volid)}`,
      );
      expect(upid).toContain(`:imgdel:${volid.startsWith('local:iso') ? '' : '9100@'}${volid.split(':')[0]}:`);
      expect([await sim.finish(upid), sim.log(upid)[0]]).toEqual(['OK', `Removed volume '${volid}'`]);
    }
    const gone = await fx.raw(
      'GET',
      `/api2/json/nodes/${NODE}/storage/local/content/${encodeURIComponent('local:iso/tools.iso')}`,
    );
    expect([gone.status, gone.body.message]).toEqual([500, expect.stringMatching(/^failed to stat '.*tools\.iso'\n$/)]);
    const notes = await fx.raw(
      'PUT',
      `/api2/json/nodes/${NODE}/storage/local/content/${encodeURIComponent('local:iso/a.iso')}`,
      { form: { notes: 'x' } },
    );
    expect([notes.status, notes.body.message]).toEqual([500, 'only backups can have notes\n']);
  });

  it("an OVA's import metadata: its VM, disks inside the OVA with their capacity, NIC model, and PVE's warnings", async () => {
    const up = await upload(fx, NODE, 'local', { content: 'import', filename: 'app.ova', data: makeOva('app') });
    expect(await sim.finish(up.body.data as string)).toBe('OK');
    expect(
      await sim.ok(
        'GET',
        `/nodes/${NODE}/storage/local/import-metadata?volume=${encodeURIComponent('local:import/app.ova')}`,
      ),
    ).toEqual({
      type: 'vm',
      source: 'import/app.ova',
      'create-args': {
        name: 'app-appliance',
        cores: '2',
        memory: '1024',
        ostype: 'l26',
        bios: 'ovmf',
        boot: 'order=scsi0',
      },
      disks: { scsi0: { volid: 'local:import/app.ova/disk1.vmdk', size: 64 * 1024 ** 2 }, efidisk0: 1 },
      warnings: [{ type: 'ova-needs-extracting' }, { type: 'efi-state-lost', key: 'bios', value: 'ovmf' }],
      net: { net0: { model: 'vmxnet3' } },
    });
    const notOva = await fx.raw(
      'GET',
      `/api2/json/nodes/${NODE}/storage/local/import-metadata?volume=${encodeURIComponent('local:import/base.qcow2')}`,
    );
    expect([notOva.status, notOva.body.message]).toEqual([500, 'invalid format\n']);
  });
});
