"""The dispatch domain: emergency dispatch of ambulances on real road networks with a travel-time atlas."""
