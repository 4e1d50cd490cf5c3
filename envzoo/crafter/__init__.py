"""The crafter domain: Crafter's open world"""
