"""Floating-point model of the single-ReLU-neuron modular-addition network.

This subpackage is the *untrusted* float model of the paper "A Counterexample to
Fourier Alignment in Single-Neuron Modular Addition": the loss (1.1), its
gradient with a chosen ReLU'(0) convention, the Fourier-energy fractions (1.5),
and an event-driven simulation of the full 3p-dimensional gradient flow.

Floats may *choose* (starting points, step sizes, which case to certify) and may
*cross-check* rigorous results, but they never *bound* anything: no certificate
may rely on a number produced here.
"""
