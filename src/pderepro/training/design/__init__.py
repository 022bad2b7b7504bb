"""Structural design by optimisation (the ``design`` studies): torch autograd through the
elasticity solve and the volume constraint (:mod:`.physics`), and the optimisers that
update a design's parameters (:mod:`.optimisers`)."""
