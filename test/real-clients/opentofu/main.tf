# What a user of the bpg/proxmox provider writes for a small estate, driven by
# test/integration/real-clients/opentofu.test.ts against ferry's Proxmox simulator: start-up reads
# (nodes, datastores, VMs, users, roles, groups, pools), permissions (a role, a group with an ACL, a user,
# a privilege-separated token and its ACL), storage content (an ISO downloaded by URL, another uploaded)
# and a VM taken through create -> update -> clone -> destroy. The test changes the variables between
# applies; every plan after an apply must show no change.

terraform {
  required_providers {
    proxmox = {
      source = "bpg/proxmox"
    }
  }
}

variable "endpoint" {
  type = string
}

variable "api_token" {
  type      = string
  sensitive = true
}

variable "iso_url" {
  type = string
}

variable "iso_sha256" {
  type = string
}

variable "upload_path" {
  type = string
}

variable "cores" {
  type    = number
  default = 2
}

variable "memory" {
  type    = number
  default = 1024
}

variable "description" {
  type    = string
  default = "made by OpenTofu"
}

variable "blank_started" {
  type    = bool
  default = true
}

variable "clone" {
  type    = bool
  default = false
}

provider "proxmox" {
  endpoint  = var.endpoint
  api_token = var.api_token
  # TLS is verified: the test points SSL_CERT_FILE at the simulator's CA.
  insecure = false
}

# Start-up reads.
data "proxmox_virtual_environment_nodes" "all" {}

data "proxmox_virtual_environment_node" "pve1" {
  node_name = "pve1"
}

data "proxmox_virtual_environment_datastores" "pve1" {
  node_name = "pve1"
}

data "proxmox_virtual_environment_roles" "all" {}

data "proxmox_virtual_environment_users" "all" {}

data "proxmox_virtual_environment_groups" "all" {}

data "proxmox_virtual_environment_pools" "all" {}

# Permissions: an operator role, a group holding it on /vms, a user in the group, its own token.
resource "proxmox_virtual_environment_role" "operator" {
  role_id    = "TofuOperator"
  privileges = ["VM.Audit", "VM.PowerMgmt", "Datastore.Audit"]
}

resource "proxmox_virtual_environment_group" "ops" {
  group_id = "tofu-ops"
  comment  = "operators, managed by OpenTofu"

  acl {
    path      = "/vms"
    propagate = true
    role_id   = proxmox_virtual_environment_role.operator.role_id
  }
}

resource "proxmox_virtual_environment_user" "operator" {
  user_id  = "tofu-op@pve"
  password = "tofu-operator-password"
  comment  = "managed by OpenTofu"
  groups   = [proxmox_virtual_environment_group.ops.group_id]
}

resource "proxmox_virtual_environment_user_token" "operator" {
  user_id               = proxmox_virtual_environment_user.operator.user_id
  token_name            = "ci"
  comment               = "CI token, managed by OpenTofu"
  privileges_separation = true
}

resource "proxmox_virtual_environment_acl" "operator_token" {
  token_id  = proxmox_virtual_environment_user_token.operator.id
  path      = "/vms"
  role_id   = proxmox_virtual_environment_role.operator.role_id
  propagate = true
}

# Storage content.
resource "proxmox_virtual_environment_download_file" "installer" {
  content_type       = "iso"
  datastore_id       = "local"
  node_name          = "pve1"
  url                = var.iso_url
  file_name          = "tofu-installer.iso"
  checksum           = var.iso_sha256
  checksum_algorithm = "sha256"
}

resource "proxmox_virtual_environment_file" "tools" {
  content_type = "iso"
  datastore_id = "local"
  node_name    = "pve1"

  source_file {
    path      = var.upload_path
    file_name = "tofu-tools.iso"
  }
}

# The VM: created and started, then updated (cores, memory: a reboot; description), then cloned while it
# runs, then destroyed (shut down first). The test makes it a guest with an OS, which answers ACPI.
resource "proxmox_virtual_environment_vm" "web" {
  node_name   = "pve1"
  vm_id       = 4100
  name        = "tofu-web"
  description = var.description
  started     = true

  cpu {
    cores = var.cores
  }

  memory {
    dedicated = var.memory
  }

  disk {
    datastore_id = "local-lvm"
    interface    = "scsi0"
    size         = 2
  }

  cdrom {
    file_id   = proxmox_virtual_environment_download_file.installer.id
    interface = "ide2"
  }

  network_device {
    bridge = "vmbr0"
  }

  operating_system {
    type = "l26"
  }
}

# A VM with nothing to boot, as on PVE it ignores the ACPI button: stopping it (blank_started = false),
# the provider's graceful shutdown runs into its timeout, PVE's forceStop stops it.
resource "proxmox_virtual_environment_vm" "blank" {
  node_name           = "pve1"
  vm_id               = 4102
  name                = "tofu-blank"
  started             = var.blank_started
  timeout_shutdown_vm = 2

  disk {
    datastore_id = "local-lvm"
    interface    = "scsi0"
    size         = 1
  }
}

resource "proxmox_virtual_environment_vm" "copy" {
  count     = var.clone ? 1 : 0
  node_name = "pve1"
  vm_id     = 4101
  name      = "tofu-web-copy"
  started   = false

  clone {
    vm_id        = proxmox_virtual_environment_vm.web.vm_id
    full         = true
    datastore_id = "local-lvm"
  }
}

data "proxmox_virtual_environment_vms" "all" {
  depends_on = [proxmox_virtual_environment_vm.web, proxmox_virtual_environment_vm.copy]
}

output "nodes" {
  value = data.proxmox_virtual_environment_nodes.all.names
}

output "datastores" {
  value = data.proxmox_virtual_environment_datastores.pve1.datastores[*].id
}

output "vms" {
  value = data.proxmox_virtual_environment_vms.all.vms[*].vm_id
}

output "operator_token" {
  value     = proxmox_virtual_environment_user_token.operator.value
  sensitive = true
}

output "web_mac" {
  value = proxmox_virtual_environment_vm.web.network_device[0].mac_address
}
