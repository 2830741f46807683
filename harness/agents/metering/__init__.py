"""Metering: the loopback proxy between an agent CLI and its model, with prices and a budget.

``proxy`` forwards and meters, ``usage`` reads token counts from each wire
protocol, ``prices`` turns them into cents from the versioned ``prices.json``.
"""
