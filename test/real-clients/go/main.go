// Command go-proxmox-lifecycle drives a Proxmox VE API with github.com/luthermonson/go-proxmox, a
// client ferry does not use itself, through a VM's lifecycle: create, configure, start, snapshot, clone,
// move, destroy. ferry's tests run it against the Proxmox simulator (test/integration/real-clients).
//
// Settings come from the environment: PVE_URL (https://host:port), PVE_TOKEN_ID, PVE_TOKEN_SECRET,
// PVE_CA_FILE, PVE_NODE, PVE_TARGET_NODE, PVE_VMID (the new VM; its clone is PVE_VMID+1). Each step
// prints one line `step <name> ok` (or fails with exit status 1 naming the step and the error); the
// last line is a JSON summary of what the client read.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	proxmox "github.com/luthermonson/go-proxmox"
)

type summary struct {
	Version       string   `json:"version"`
	NodeCPUs      int      `json:"nodeCpus"`
	NodeHVM       string   `json:"nodeHvm"`
	Nodes         []string `json:"nodes"`
	NextID        int      `json:"nextId"`
	VMID          int      `json:"vmid"`
	Memory        string   `json:"memory"`
	Running       bool     `json:"running"`
	Snapshots     []string `json:"snapshots"`
	SnapshotRAM   int      `json:"snapshotVmstate"`
	CloneID       int      `json:"cloneId"`
	CloneName     string   `json:"cloneName"`
	CloneDisk     string   `json:"cloneDisk"`
	CloneNode     string   `json:"cloneNode"`
	MigrateAllow  []string `json:"migrateAllowed"`
	DestroyedVMs  []int    `json:"destroyed"`
	ResourceCount int      `json:"resourcesAfter"`
}

var ctx = context.Background()

func must(step string, err error) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "step %s failed: %v\n", step, err)
		os.Exit(1)
	}
}

func done(step string) { fmt.Printf("step %s ok\n", step) }

func wait(step string, task *proxmox.Task, err error) {
	must(step, err)
	must(step, task.Wait(ctx, 100*time.Millisecond, 2*time.Minute))
	if !task.IsSuccessful {
		must(step, fmt.Errorf("task %s ended %q", task.UPID, task.ExitStatus))
	}
	done(step)
}

func client() *proxmox.Client {
	pem, err := os.ReadFile(os.Getenv("PVE_CA_FILE"))
	must("ca", err)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		must("ca", fmt.Errorf("no certificate in %s", os.Getenv("PVE_CA_FILE")))
	}
	httpClient := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	return proxmox.NewClient(os.Getenv("PVE_URL")+"/api2/json",
		proxmox.WithHTTPClient(httpClient),
		proxmox.WithAPIToken(os.Getenv("PVE_TOKEN_ID"), os.Getenv("PVE_TOKEN_SECRET")))
}

func main() {
	c := client()
	var out summary
	vmid, err := strconv.Atoi(os.Getenv("PVE_VMID"))
	must("env", err)
	nodeName, target := os.Getenv("PVE_NODE"), os.Getenv("PVE_TARGET_NODE")

	version, err := c.Version(ctx)
	must("version", err)
	out.Version = version.Version
	nodes, err := c.Nodes(ctx)
	must("nodes", err)
	for _, n := range nodes {
		out.Nodes = append(out.Nodes, n.Node)
	}
	node, err := c.Node(ctx, nodeName)
	must("node", err)
	out.NodeCPUs, out.NodeHVM = node.CPUInfo.CPUs, node.CPUInfo.HVM
	done("node")
	cluster, err := c.Cluster(ctx)
	must("cluster", err)
	out.NextID, err = cluster.NextID(ctx)
	must("nextid", err)
	done("cluster")

	// create
	task, err := node.NewVirtualMachine(ctx, vmid,
		proxmox.VirtualMachineOption{Name: "name", Value: "rc-go"},
		proxmox.VirtualMachineOption{Name: "memory", Value: 512},
		proxmox.VirtualMachineOption{Name: "cores", Value: 1},
		proxmox.VirtualMachineOption{Name: "scsihw", Value: "virtio-scsi-pci"},
		proxmox.VirtualMachineOption{Name: "scsi0", Value: "local-lvm:1"},
		proxmox.VirtualMachineOption{Name: "net0", Value: "virtio,bridge=vmbr0"})
	wait("create", task, err)
	vm, err := node.VirtualMachine(ctx, vmid)
	must("read", err)
	out.VMID = int(vm.VMID)

	// configure
	task, err = vm.Config(ctx,
		proxmox.VirtualMachineOption{Name: "memory", Value: 1024},
		proxmox.VirtualMachineOption{Name: "description", Value: "configured by go-proxmox"})
	wait("configure", task, err)
	task, err = vm.ResizeDisk(ctx, "scsi0", "+1G")
	wait("resize", task, err)
	must("configure", vm.Ping(ctx))
	out.Memory = fmt.Sprint(vm.VirtualMachineConfig.Memory)

	// start
	task, err = vm.Start(ctx)
	wait("start", task, err)
	must("start", vm.Ping(ctx))
	out.Running = vm.IsRunning()

	// snapshot (with RAM, the VM runs), then back to it once stopped
	var upid proxmox.UPID
	must("snapshot", c.Post(ctx, fmt.Sprintf("/nodes/%s/qemu/%d/snapshot", nodeName, vmid), map[string]interface{}{"snapname": "before", "vmstate": 1, "description": "go-proxmox"}, &upid))
	wait("snapshot", proxmox.NewTask(upid, c), nil)
	snapshots, err := vm.Snapshots(ctx)
	must("snapshots", err)
	for _, s := range snapshots {
		out.Snapshots = append(out.Snapshots, s.Name)
		if s.Name == "before" {
			out.SnapshotRAM = s.Vmstate
		}
	}
	task, err = vm.Stop(ctx)
	wait("stop", task, err)
	task, err = vm.Snapshot("before").Rollback(ctx)
	wait("rollback", task, err)
	must("rollback", vm.Ping(ctx))
	if !vm.IsRunning() {
		must("rollback", fmt.Errorf("a rollback to a snapshot with RAM should leave the VM running, status %q", vm.Status))
	}
	task, err = vm.Stop(ctx)
	wait("stop-again", task, err)

	// clone, onto the shared storage so that it can move to the other node
	newid, task, err := vm.Clone(ctx, &proxmox.VirtualMachineCloneOptions{NewID: vmid + 1, Name: "rc-go-clone", Full: true, Storage: "nfs-migration", Format: "qcow2"})
	wait("clone", task, err)
	clone, err := node.VirtualMachine(ctx, newid)
	must("clone", err)
	out.CloneID, out.CloneName = newid, clone.Name

	// move: the clone's disk to another storage, then the clone to the other node
	task, err = clone.MoveDisk(ctx, "scsi0", &proxmox.VirtualMachineMoveDiskOptions{Storage: "local", Format: "raw", Delete: true})
	wait("move-disk", task, err)
	must("move-disk", clone.Ping(ctx))
	out.CloneDisk = clone.VirtualMachineConfig.SCSIs["scsi0"]
	// Read as a map: go-proxmox's typed MigratePreconditions wants JSON booleans where PVE's code
	// answers 0/1 (`running => check_running(...) ? 1 : 0`), so it cannot decode a real answer.
	var pre struct {
		AllowedNodes []string `json:"allowed_nodes"`
	}
	must("migrate-preconditions", c.Get(ctx, fmt.Sprintf("/nodes/%s/qemu/%d/migrate?target=%s", nodeName, newid, target), &pre))
	out.MigrateAllow = pre.AllowedNodes
	task, err = clone.Migrate(ctx, &proxmox.VirtualMachineMigrateOptions{Target: target})
	wait("migrate", task, err)
	moved, err := c.Node(ctx, target)
	must("migrate", err)
	clone, err = moved.VirtualMachine(ctx, newid)
	must("migrate", err)
	out.CloneNode = clone.Node

	// destroy
	task, err = vm.Snapshot("before").Delete(ctx)
	wait("snapshot-delete", task, err)
	task, err = vm.Delete(ctx, &proxmox.VirtualMachineDeleteOptions{Purge: true})
	wait("destroy", task, err)
	task, err = clone.Delete(ctx, nil)
	wait("destroy-clone", task, err)
	out.DestroyedVMs = []int{vmid, newid}
	resources, err := cluster.Resources(ctx, "vm")
	must("resources", err)
	for _, r := range resources {
		if r.VMID == uint64(vmid) || r.VMID == uint64(newid) || strings.HasPrefix(r.Name, "rc-go") {
			out.ResourceCount++
		}
	}
	line, err := json.Marshal(out)
	must("summary", err)
	fmt.Println(string(line))
}
