"""Drives a Proxmox VE API with proxmoxer (PyPI), a client ferry does not use itself, through a VM's
lifecycle: create, configure, start, snapshot, template and (linked) clone, move, pools, destroy.
ferry's tests run it against the Proxmox simulator (test/integration/real-clients).

Settings come from the environment: PVE_URL (https://host:port), PVE_TOKEN_ID (user@realm!name),
PVE_TOKEN_SECRET, PVE_CA_FILE, PVE_NODE, PVE_VMID (the new VM; the template is PVE_VMID+1, its linked
clone PVE_VMID+2). Each step prints `step <name> ok`; a failure exits 1 naming the step and the error.
The last line is a JSON summary of what the client read.
"""
import json
import os
import sys
from urllib.parse import urlparse

from proxmoxer import ProxmoxAPI
from proxmoxer.tools import Tasks


def fail(step, err):
    print(f"step {step} failed: {err}", file=sys.stderr)
    sys.exit(1)


def wait(px, step, upid):
    status = Tasks.blocking_status(px, upid, timeout=120, polling_interval=0.1)
    if status is None or status.get("exitstatus") != "OK":
        fail(step, f"task {upid} ended {status}")
    print(f"step {step} ok", flush=True)
    return status


def main():
    url = urlparse(os.environ["PVE_URL"])
    user, token_name = os.environ["PVE_TOKEN_ID"].split("!")
    px = ProxmoxAPI(url.hostname, port=url.port, user=user, token_name=token_name,
                    token_value=os.environ["PVE_TOKEN_SECRET"], verify_ssl=os.environ["PVE_CA_FILE"], timeout=30)
    node_name, vmid = os.environ["PVE_NODE"], int(os.environ["PVE_VMID"])
    node = px.nodes(node_name)
    out = {"version": px.version.get()["version"], "nodes": [n["node"] for n in px.nodes.get()]}
    out["nextid"] = px.cluster.nextid.get()
    status = node.status.get()
    out["nodeCpus"], out["nodeHvm"] = status["cpuinfo"]["cpus"], status["cpuinfo"]["hvm"]

    # create
    wait(px, "create", node.qemu.post(vmid=vmid, name="rc-py", memory=512, cores=1, scsihw="virtio-scsi-pci",
                                      scsi0="local-lvm:1", net0="virtio,bridge=vmbr0", ostype="l26"))
    vm = node.qemu(vmid)

    # configure: sync (PUT) and async (POST) writes, a resize
    if vm.config.put(memory=1024, description="configured by proxmoxer") is not None:
        fail("configure", "PUT config answers null")
    wait(px, "configure", vm.config.post(scsi1="local-lvm:1", tags="real-client"))
    wait(px, "resize", vm.resize.put(disk="scsi0", size="+1G"))
    config = vm.config.get()
    out["config"] = {k: config[k] for k in ("memory", "cores", "scsi0", "scsi1", "tags")}

    # start
    wait(px, "start", vm.status.start.post())
    out["status"] = vm.status.current.get()["status"]

    # snapshot of the running VM, without RAM; rollback (which stops it) and delete
    wait(px, "snapshot", vm.snapshot.post(snapname="pre_change", description="proxmoxer"))
    out["snapshots"] = {s["name"]: s.get("parent") for s in vm.snapshot.get()}
    vm.config.put(cores=2)
    wait(px, "rollback", vm.snapshot("pre_change").rollback.post())
    out["coresAfterRollback"] = vm.config.get()["cores"]
    out["statusAfterRollback"] = vm.status.current.get()["status"]
    wait(px, "snapshot-delete", vm.snapshot("pre_change").delete())

    # a template and a linked clone of it, which then moves to another storage
    template, clone = vmid + 1, vmid + 2
    wait(px, "template-create", node.qemu.post(vmid=template, name="rc-py-template", memory=512, scsi0="local-lvm:1"))
    wait(px, "template", node.qemu(template).template.post())
    out["feature"] = node.qemu(template).feature.get(feature="clone")
    wait(px, "clone", node.qemu(template).clone.post(newid=clone, name="rc-py-linked"))
    out["cloneDisk"] = node.qemu(clone).config.get()["scsi0"]
    wait(px, "move", node.qemu(clone).move_disk.post(disk="scsi0", storage="local", format="qcow2", delete=1))
    out["movedDisk"] = node.qemu(clone).config.get()["scsi0"]

    # a pool by id
    px.pools.post(poolid="rcpool", comment="proxmoxer")
    px.pools("rcpool").put(vms=f"{vmid},{clone}")
    out["poolMembers"] = sorted(m["vmid"] for m in px.pools("rcpool").get()["members"])
    px.pools("rcpool").put(vms=f"{vmid},{clone}", delete=1)
    px.pools("rcpool").delete()
    print("step pool ok", flush=True)

    # destroy
    wait(px, "stop", vm.status.stop.post())
    for gone in (vmid, clone, template):
        wait(px, f"destroy-{gone}", node.qemu(gone).delete(purge=1))
    out["left"] = [r["vmid"] for r in px.cluster.resources.get(type="vm") if r["vmid"] in (vmid, template, clone)]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
