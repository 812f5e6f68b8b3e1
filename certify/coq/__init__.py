"""Coq re-proofs of certificates: each claim's numerical content as Coq lemmas over the reals.

Layers (each depends only on those above it):

``terms``     Coq terms for exact rationals (the certificate's own numbers) and identifiers
``lemma``     :class:`Lemma`, :class:`Definition`, :class:`NotExported`: what an exporter returns
``primes``    a Pocklington certificate of p that Coqprime checks by computation
``gaussian``  the ``gaussian_probability`` claim (product of Gaussian factor integrals)
``family``    claims shared by dead, smooth and gd (gate margins, two-level Fourier fraction)
``dead``, ``slide``, ``smooth``, ``gd``   one exporter per theorem
``region``, ``region_slide``   the ``region_probability`` claims of dead and slide (a Mills-ratio bound of Phi)
``export``    assembles the .v file of a certificate (header, primality, lemmas, what is not exported)
``compile``   runs ``coqc`` on it

What Coq proves is the numerical obligations, written with the certificate's own exact numbers
(never with the kernel's recomputation). The implications from the obligations to the theorem are
the paper's lemmas, cited in a comment above each Coq lemma; they are not formalised.
"""
