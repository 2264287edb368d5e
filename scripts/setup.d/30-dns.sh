# debian: bind9 bind9-utils bind9-dnsutils openssh-client
# BIND 9 from Debian as the real RFC 2136 peer of the tests and the lab (named, plus dig and nsupdate to
# cross-check ferry's updates), and OpenSSH's ssh-keygen to cross-check known_hosts cleanup.
link_tool named /usr/sbin/named
link_tool dig "$(command -v dig)"
link_tool nsupdate "$(command -v nsupdate)"
link_tool ssh-keygen "$(command -v ssh-keygen)"
