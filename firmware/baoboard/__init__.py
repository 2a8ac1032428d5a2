# The board application: pit activations -> move recognition -> LED guidance -> serial reports.
