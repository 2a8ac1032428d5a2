"""Play over the network (issue #27; docs/online.md): the server's referee and its durable games
(bao_host.online.server, bao_host.online.store), the client that connects a board to it
(bao_host.online.client), and what both ends share (bao_host.online.protocol)."""
